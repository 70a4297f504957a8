/**
 * The shell around every page of a logged-in user: a header with the account menu and logout, and a
 * navigation listing only the pages the user may open (a burger menu on narrow screens).
 */
import { Alert, AppShell, Burger, Button, Group, NavLink, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { holdsAny } from '../auth/permissions.js';
import { useMe, useSession } from '../auth/session.js';
import { pages } from '../pages/registry.js';
import { OwnPasswordDialog } from './OwnPasswordDialog.js';

export function AppLayout({ children }: { children: ReactNode }) {
  const me = useMe();
  const { logout } = useSession();
  const [opened, { toggle, close }] = useDisclosure();
  const [location] = useLocation();
  const [changingPassword, setChangingPassword] = useState(false);
  const visible = pages.filter((page) => holdsAny(me.permissions, page.anyOf));
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
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
      <AppShell.Navbar p="xs" component="nav" aria-label="Pages">
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
      <AppShell.Main>
        {me.must_change_password && (
          <Alert color="yellow" title="Please change your password" mb="md" role="status">
            An administrator set your password. Choose your own with the Password button at the top.
          </Alert>
        )}
        {children}
      </AppShell.Main>
      {changingPassword && <OwnPasswordDialog onClose={() => setChangingPassword(false)} />}
    </AppShell>
  );
}
