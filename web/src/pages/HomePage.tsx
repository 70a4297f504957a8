/**
 * `/`: the model launch page for users who may open it (`models:list`); anyone else lands on the
 * first page of the registry they may open, or a welcome note when there is none.
 */
import { Alert } from '@mantine/core';
import { Redirect } from 'wouter';
import { holdsAny } from '../auth/permissions.js';
import { useMe } from '../auth/session.js';
import { pages } from './registry.js';

export function HomePage() {
  const me = useMe();
  const home = pages.find((page) => page.path === '/');
  if (home !== undefined && holdsAny(me.permissions, home.anyOf)) return <home.component />;
  const first = pages.find((page) => page.path !== '/' && holdsAny(me.permissions, page.anyOf));
  if (first !== undefined) return <Redirect to={first.path} replace />;
  return (
    <Alert title={`Welcome, ${me.username}`} role="status">
      Your account holds no permission that opens a page here yet. Ask an administrator to grant one.
    </Alert>
  );
}
