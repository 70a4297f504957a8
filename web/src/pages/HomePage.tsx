/**
 * `/`: the model launch page for users who may open it (`models:list`), under the overview for
 * administrators; anyone else lands on the first page of the registry they may open, or a welcome
 * note when there is none.
 */
import { Alert, Stack } from '@mantine/core';
import { Redirect } from 'wouter';
import { holds, holdsAny } from '../auth/permissions.js';
import { useMe } from '../auth/session.js';
import { usePageTitle } from '../layout/use-page-title.js';
import { AdminOverview } from './AdminOverview.js';
import { pages } from './registry.js';

export function HomePage() {
  const me = useMe();
  const home = pages.find((page) => page.path === '/');
  const opensHome = home !== undefined && holdsAny(me.permissions, home.anyOf);
  usePageTitle(opensHome ? home.label : 'Home');
  if (opensHome) {
    return (
      <Stack gap="xl">
        {holds(me.permissions, 'admin') && <AdminOverview />}
        <home.component />
      </Stack>
    );
  }
  const first = pages.find((page) => page.path !== '/' && holdsAny(me.permissions, page.anyOf));
  if (first !== undefined) return <Redirect to={first.path} replace />;
  return (
    <Alert title={`Welcome, ${me.username}`} role="status">
      Your account holds no permission that opens a page here yet. Ask an administrator to grant one.
    </Alert>
  );
}
