/**
 * `/`: the first page the user may open (the model launch page will live here once the model routes
 * exist; until then the user lands on the first page of the registry they may open).
 */
import { Alert } from '@mantine/core';
import { Redirect } from 'wouter';
import { holdsAny } from '../auth/permissions.js';
import { useMe } from '../auth/session.js';
import { pages } from './registry.js';

export function HomePage() {
  const me = useMe();
  const first = pages.find((page) => page.path !== '/' && holdsAny(me.permissions, page.anyOf));
  if (first !== undefined) return <Redirect to={first.path} replace />;
  return (
    <Alert title={`Welcome, ${me.username}`} role="status">
      Your account holds no permission that opens a page here yet. Ask an administrator to grant one.
    </Alert>
  );
}
