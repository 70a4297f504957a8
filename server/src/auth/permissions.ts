/**
 * The permission vocabulary of the spec: the names, the deprecated legacy names and their mapping,
 * and the checks every route uses. `admin` holds every other permission.
 */
import type { components } from '../generated/openapi.js';

/** A permission name of the spec's table. */
export type Permission = components['schemas']['Permission'];
/** A permission name as accepted on input: a permission or a deprecated legacy name. */
export type PermissionInput = components['schemas']['PermissionInput'];

/** Every permission, in the spec's order. */
export const allPermissions: readonly Permission[] = [
  'models:list',
  'models:read',
  'models:write',
  'models:register',
  'keys:create',
  'keys:manage',
  'users:manage',
  'cache:list',
  'cache:delete',
  'virtualenv:list',
  'virtualenv:delete',
  'logs:list',
  'monitor:view',
  'usage:read_all',
  'admin',
];

/**
 * Legacy scope names and their replacements.
 *
 * @deprecated The mapping will be removed in a future release; use the replacement names.
 */
export const legacyPermissionMap: Readonly<Record<Exclude<PermissionInput, Permission>, Permission>> = {
  'models:start': 'models:write',
  'models:stop': 'models:write',
  'models:add': 'models:register',
  'models:unregister': 'models:register',
};

/** A set of permissions as held by a caller or a user. */
export type PermissionSet = ReadonlySet<Permission>;

/** The result of mapping input names: the canonical set, and whether a legacy name was used. */
export interface NormalizedPermissions {
  permissions: Permission[];
  usedLegacyNames: boolean;
}

/** Maps legacy names to their replacements and removes duplicates, keeping the spec's order. */
export function normalizePermissions(input: readonly PermissionInput[]): NormalizedPermissions {
  let usedLegacyNames = false;
  const wanted = new Set<Permission>();
  for (const name of input) {
    if (name in legacyPermissionMap) {
      usedLegacyNames = true;
      wanted.add(legacyPermissionMap[name as keyof typeof legacyPermissionMap]);
    } else {
      wanted.add(name as Permission);
    }
  }
  return { permissions: allPermissions.filter((p) => wanted.has(p)), usedLegacyNames };
}

/** True when `held` includes `permission` (directly or through `admin`). */
export function holds(held: PermissionSet, permission: Permission): boolean {
  return held.has('admin') || held.has(permission);
}

/** True when `held` includes at least one of `permissions`; an empty list needs nothing. */
export function holdsAny(held: PermissionSet, permissions: readonly Permission[]): boolean {
  return permissions.length === 0 || permissions.some((p) => holds(held, p));
}

/** The permissions of `wanted` that `held` does not include. */
export function missingPermissions(held: PermissionSet, wanted: Iterable<Permission>): Permission[] {
  return [...wanted].filter((p) => !holds(held, p));
}

/**
 * The permissions a call made with an API key carries: the owner's live permissions, narrowed by the
 * key's own list when it has one. A key never holds what its owner does not.
 */
export function narrowPermissions(owner: PermissionSet, key: readonly Permission[] | null): PermissionSet {
  if (key === null) return owner;
  if (key.includes('admin')) return owner;
  return new Set(key.filter((p) => holds(owner, p)));
}

/** The permissions in a set, in the spec's order. */
export function sortedPermissions(set: PermissionSet): Permission[] {
  return allPermissions.filter((p) => set.has(p));
}

const permissionOrder = new Map(allPermissions.map((permission, index) => [permission, index]));

/** `permissions` in the canonical order of {@link allPermissions} (a new array). */
export function sortPermissions(permissions: readonly Permission[]): Permission[] {
  return [...permissions].sort((a, b) => (permissionOrder.get(a) ?? 0) - (permissionOrder.get(b) ?? 0));
}
