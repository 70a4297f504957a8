/**
 * What an ID token's claims grant: the username claim, the groups claim (a dotted path reaches a
 * nested claim such as Keycloak's `realm_access.roles`) and the permissions the configured mapping
 * gives those groups.
 */
import { sortedPermissions, type Permission } from '../auth/permissions.js';
import type { OidcConfig } from '../config.js';

/** The value at a dotted claim path, or undefined. */
export function claimAt(claims: Readonly<Record<string, unknown>>, path: string): unknown {
  let current: unknown = claims;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** The groups the token lists: an array of strings, or a single string; anything else is no groups. */
export function groupsOf(claims: Readonly<Record<string, unknown>>, groupsClaim: string): string[] {
  const value = claimAt(claims, groupsClaim);
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value)) return [];
  return value.filter((group): group is string => typeof group === 'string');
}

/** The permissions the mapping grants `groups`, in the spec's order. */
export function mappedPermissions(config: Pick<OidcConfig, 'groupPermissions'>, groups: readonly string[]): Permission[] {
  const granted = new Set<Permission>();
  for (const group of groups) {
    if (!Object.prototype.hasOwnProperty.call(config.groupPermissions, group)) continue;
    for (const permission of config.groupPermissions[group] ?? []) granted.add(permission);
  }
  return sortedPermissions(granted);
}

/** What changes from `before` to `after`. */
export function permissionChanges(before: readonly Permission[], after: readonly Permission[]): { granted: Permission[]; revoked: Permission[] } {
  return { granted: after.filter((permission) => !before.includes(permission)), revoked: before.filter((permission) => !after.includes(permission)) };
}
