/**
 * The rules that keep privilege from growing: nobody grants what they do not hold, and nobody acts
 * on an account (or its keys) that holds permissions they lack.
 */
import { ApiError } from '../errors.js';
import { missingPermissions, type Permission, type PermissionSet } from '../auth/permissions.js';

/** Throws 403 `cannot_grant_unheld_permissions` unless `caller` holds every permission in `wanted`. */
export function assertMayGrant(caller: PermissionSet, wanted: readonly Permission[]): void {
  const missing = missingPermissions(caller, wanted);
  if (missing.length > 0) {
    throw new ApiError('cannot_grant_unheld_permissions', `Cannot grant permissions you do not hold: [${missing.join(', ')}]`, {
      param: 'permissions',
    });
  }
}

/** Throws 403 `target_holds_unheld_permissions` unless `caller` holds every permission of `target`. */
export function assertOutranks(caller: PermissionSet, target: readonly Permission[], what: string): void {
  const missing = missingPermissions(caller, target);
  if (missing.length > 0) {
    throw new ApiError('target_holds_unheld_permissions', `${what} holds permissions you do not: [${missing.join(', ')}]`);
  }
}
