/**
 * The pages of the app shell: where each lives, what the navigation calls it, and the permissions
 * that open it (any one of them; `admin` holds all). The navigation shows only pages the user may
 * open; a direct link to another shows {@link Forbidden}. The server must list each `path` in
 * `server/src/ui/client-routes.ts` so a reload of the page is answered with the app.
 *
 * Add a page: write `pages/XxxPage.tsx` (load through `client.<resource>` with `useLoader`, tables
 * with `DataTable`, forms with `FormDialog`/`useForm`, actions with `GuardedButton`), then add one
 * entry here.
 *
 * Each page is its own chunk of the build (`React.lazy`), loaded when first opened, so the login
 * page does not wait for the audit center's code.
 */
import type { Permission } from '@svc/sdk';
import { lazy, type ComponentType } from 'react';

const ModelsPage = lazy(() => import('./ModelsPage.js').then((module) => ({ default: module.ModelsPage })));
const PlaygroundPage = lazy(() => import('./PlaygroundPage.js').then((module) => ({ default: module.PlaygroundPage })));
const UsersPage = lazy(() => import('./UsersPage.js').then((module) => ({ default: module.UsersPage })));
const KeysPage = lazy(() => import('./KeysPage.js').then((module) => ({ default: module.KeysPage })));
const SecurityPage = lazy(() => import('./SecurityPage.js').then((module) => ({ default: module.SecurityPage })));
const UsagePage = lazy(() => import('./UsagePage.js').then((module) => ({ default: module.UsagePage })));
const AuditPage = lazy(() => import('./AuditPage.js').then((module) => ({ default: module.AuditPage })));

/** One page of the app. */
export interface PageDefinition {
  /** The URL path (also in the server's client routes). */
  path: string;
  /** The navigation label and the page title. */
  label: string;
  /** The user needs at least one of these. */
  anyOf: readonly Permission[];
  component: ComponentType;
}

/**
 * The pages in navigation order. `/` (the model launch page) is rendered by `HomePage`: a user who
 * may not open it lands on the first other page they may open instead.
 */
export const pages: readonly PageDefinition[] = [
  { path: '/', label: 'Models', anyOf: ['models:list'], component: ModelsPage },
  { path: '/playground', label: 'Playground', anyOf: ['models:read'], component: PlaygroundPage },
  { path: '/users', label: 'Users', anyOf: ['users:manage'], component: UsersPage },
  { path: '/keys', label: 'API keys', anyOf: ['keys:create', 'keys:manage'], component: KeysPage },
  // Everyone may see their own usage (no permission needed); `usage:read_all` shows everyone's.
  { path: '/usage', label: 'Usage', anyOf: [], component: UsagePage },
  { path: '/security', label: 'Security', anyOf: ['admin'], component: SecurityPage },
  { path: '/audit', label: 'Audit', anyOf: ['admin'], component: AuditPage },
];
