/**
 * The pages of the app shell: where each lives, what the navigation calls it, and the permissions
 * that open it (any one of them; `admin` holds all). The navigation shows only pages the user may
 * open; a direct link to another shows {@link Forbidden}. The server must list each `path` in
 * `server/src/ui/client-routes.ts` so a reload of the page is answered with the app.
 *
 * Add a page: write `pages/XxxPage.tsx` (load through `client.<resource>` with `useLoader`, tables
 * with `DataTable`, forms with `FormDialog`/`useForm`, actions with `GuardedButton`), then add one
 * entry here.
 */
import type { Permission } from '@svc/sdk';
import type { ComponentType } from 'react';
import { AuditPage } from './AuditPage.js';
import { KeysPage } from './KeysPage.js';
import { ModelsPage } from './ModelsPage.js';
import { SecurityPage } from './SecurityPage.js';
import { UsersPage } from './UsersPage.js';

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
  { path: '/users', label: 'Users', anyOf: ['users:manage'], component: UsersPage },
  { path: '/keys', label: 'API keys', anyOf: ['keys:create', 'keys:manage'], component: KeysPage },
  { path: '/security', label: 'Security', anyOf: ['admin'], component: SecurityPage },
  { path: '/audit', label: 'Audit', anyOf: ['admin'], component: AuditPage },
];
