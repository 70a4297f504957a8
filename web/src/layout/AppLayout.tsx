/**
 * The shell around every page of a logged-in user: a header with the account menu and logout, and a
 * navigation listing only the pages the user may open (a burger menu on narrow screens), and a skip
 * link to the page's content. On a narrow screen the folded navigation is `inert` (out of the tab
 * order and hidden from screen readers) until the burger, which says whether it is expanded, opens it.
 */
import { Alert, AppShell, Burger, Button, Group, NavLink, Text, em } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { useEffect, useRef, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { holdsAny } from '../auth/permissions.js';
import { useMe, useSession } from '../auth/session.js';
import { pages } from '../pages/registry.js';
import { useDialog } from '../components/use-dialog.js';
import { OwnPasswordDialog } from './OwnPasswordDialog.js';
import { useFocusClearOfHeader } from './use-focus-clear-of-header.js';

/** Mantine's `sm` breakpoint, below which the navigation folds into the burger. */
const NAV_BREAKPOINT_PX = 768;

export function AppLayout({ children }: { children: ReactNode }) {
  const me = useMe();
  const { logout } = useSession();
  const [opened, { toggle, close }] = useDisclosure();
  const [location] = useLocation();
  const [changingPassword, setChangingPassword] = useDialog<true>();
  const narrow = useMediaQuery(`(max-width: ${em(NAV_BREAKPOINT_PX - 0.1)})`) ?? false;
  const visible = pages.filter((page) => holdsAny(me.permissions, page.anyOf));
  // After moving to another page, the focus goes to its content (as a page load would start there),
  // so keyboard and screen-reader users are not left on the link they followed.
  useFocusClearOfHeader();
  const main = useRef<HTMLElement>(null);
  const shownLocation = useRef(location);
  useEffect(() => {
    if (shownLocation.current === location) return;
    shownLocation.current = location;
    main.current?.focus();
  }, [location]);
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <a className="skip-link" href="#main-content">
        Skip to content
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" aria-expanded={opened} aria-controls="app-navigation" />
            <Text fw={700} component={Link} href="/">
              svc
            </Text>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" c="dimmed" visibleFrom="xs" data-testid="signed-in-as">
              {me.username}
            </Text>
            {me.auth_type !== 'none' && (
              <>
                <Button size="xs" variant="subtle" onClick={() => setChangingPassword(true)}>
                  Password
                </Button>
                <Button size="xs" variant="default" onClick={() => void logout()}>
                  Log out
                </Button>
              </>
            )}
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Pages" id="app-navigation" inert={narrow && !opened}>
        {visible.map((page) => (
          <NavLink
            key={page.path}
            component={Link}
            href={page.path}
            label={page.label}
            active={location === page.path}
            aria-current={location === page.path ? 'page' : undefined}
            onClick={close}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main id="main-content" tabIndex={-1} ref={main}>
        {me.must_change_password && (
          <Alert color="yellow" title="Please change your password" mb="md" role="status">
            An administrator set your password. Choose your own with the Password button at the top.
          </Alert>
        )}
        {children}
      </AppShell.Main>
      {changingPassword !== null && <OwnPasswordDialog onClose={() => setChangingPassword(null)} />}
    </AppShell>
  );
}
