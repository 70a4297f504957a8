/**
 * The permission rules the server enforces, mirrored so the UI can show an action the server would
 * refuse as disabled, with the reason. The server stays the authority: a stale page that tries anyway
 * gets the server's error, shown in words.
 */
import type { Me, Permission, User } from '@svc/sdk';

/** Every permission, grouped the way the permission picker shows them. */
export const permissionGroups: readonly { label: string; permissions: readonly Permission[] }[] = [
  { label: 'Models', permissions: ['models:list', 'models:read', 'models:write', 'models:register'] },
  { label: 'API keys', permissions: ['keys:create', 'keys:manage'] },
  { label: 'Users', permissions: ['users:manage'] },
  { label: 'Cache and environments', permissions: ['cache:list', 'cache:delete', 'virtualenv:list', 'virtualenv:delete'] },
  { label: 'Operations', permissions: ['logs:list', 'monitor:view', 'usage:read_all'] },
  { label: 'Administration', permissions: ['admin'] },
];

/** What each permission allows, for tooltips and the picker. */
export const permissionDescriptions: Readonly<Record<Permission, string>> = {
  'models:list': 'List models and get model information',
  'models:read': 'Use models',
  'models:write': 'Launch and stop models',
  'models:register': 'Register and unregister custom models',
  'keys:create': 'Create API keys for oneself',
  'keys:manage': "List, update, delete and reveal any user's API keys",
  'users:manage': 'Create, update and delete users and their permissions',
  'cache:list': 'List cached model files',
  'cache:delete': 'Delete cached model files',
  'virtualenv:list': 'List per-model virtual environments',
  'virtualenv:delete': 'Delete per-model virtual environments',
  'logs:list': 'View cluster logs',
  'monitor:view': 'View monitoring dashboards',
  'usage:read_all': "See everyone's usage (own usage needs no permission)",
  admin: 'Everything above, plus security settings and the audit center',
};

/** True when `held` includes `permission`, directly or through `admin` (as on the server). */
export function holds(held: readonly Permission[], permission: Permission): boolean {
  return held.includes('admin') || held.includes(permission);
}

/** True when `held` includes at least one of `anyOf` (an empty list needs nothing). */
export function holdsAny(held: readonly Permission[], anyOf: readonly Permission[]): boolean {
  return anyOf.length === 0 || anyOf.some((permission) => holds(held, permission));
}

/** The permissions of `wanted` that `held` lacks. */
export function missing(held: readonly Permission[], wanted: readonly Permission[]): Permission[] {
  return wanted.filter((permission) => !holds(held, permission));
}

/** Why `me` may not act on `target` (edit, disable, delete, set its password), or null when allowed. */
export function whyNotAdminister(me: Me, target: User): string | null {
  if (target.id === me.id) return 'You cannot change your own account here';
  const lacking = missing(me.permissions, target.permissions);
  if (lacking.length > 0) return `This user holds permissions you do not: ${lacking.join(', ')}`;
  return null;
}

/** Why `target` may not be disabled, deleted or lose `admin`: it is the last enabled administrator. */
export function whyNotRemoveAdmin(target: User, users: readonly User[]): string | null {
  if (!target.enabled || !target.permissions.includes('admin')) return null;
  const enabledAdmins = users.filter((user) => user.enabled && user.permissions.includes('admin'));
  return enabledAdmins.length <= 1 ? 'This is the last enabled administrator' : null;
}

/** Why `me` may not grant `permission`, or null when it may. */
export function whyNotGrant(me: Me, permission: Permission): string | null {
  return holds(me.permissions, permission) ? null : 'You can grant only permissions you hold';
}
