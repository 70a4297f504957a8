/**
 * What a call made with an API key may give another key (or itself): never more than the calling
 * key carries. Permissions are bounded by the caller's effective set (the owner's live permissions
 * narrowed by the key), model restrictions by the calling key's restrictions. An omitted or `null`
 * list means "the caller's effective set", never "the owner's": a narrowed key cannot mint or
 * become a wider one (issue 14, H1).
 */
import { ApiError } from '../errors.js';
import { sortedPermissions, type Permission } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';
import type { ModelPermission } from '../auth/records.js';

/** True when the caller is an API key narrowed to fewer permissions than its owner holds. */
function callsWithNarrowedKey(caller: Principal): boolean {
  return caller.apiKey !== null && caller.apiKey.permissions !== null && !caller.apiKey.permissions.includes('admin');
}

/**
 * The permissions a key created or changed by `caller` gets when the request names none (omitted or
 * `null`): `null` (the owner's live permissions) for a user or an unnarrowed key, the caller's
 * effective set otherwise.
 */
export function defaultKeyPermissions(caller: Principal): Permission[] | null {
  return callsWithNarrowedKey(caller) ? sortedPermissions(caller.permissions) : null;
}

/** True when the caller's key restricts which models it may use (anything short of `all`). */
function callerModelRestrictions(caller: Principal): readonly ModelPermission[] | null {
  const restrictions = caller.apiKey?.modelPermissions;
  if (restrictions === undefined || restrictions.some((entry) => entry.permission_type === 'all')) return null;
  return restrictions;
}

/**
 * The model restrictions a key created or changed by `caller` gets: `wanted` when the caller's own
 * key may use every model; otherwise `wanted` must be a subset of the caller's restrictions (an
 * omitted or empty list means exactly the caller's).
 *
 * @param wanted - the requested list, or undefined when the request names none.
 * @param fallback - what an unrestricted caller's omitted or empty list means.
 * @throws {ApiError} 403 `cannot_grant_unheld_permissions` when `wanted` reaches beyond the caller's key.
 */
export function boundedModelPermissions(
  caller: Principal,
  wanted: readonly ModelPermission[] | undefined,
  fallback: readonly ModelPermission[],
): readonly ModelPermission[] {
  const restrictions = callerModelRestrictions(caller);
  if (restrictions === null) return wanted === undefined || wanted.length === 0 ? fallback : wanted;
  if (wanted === undefined || wanted.length === 0) return restrictions;
  const beyond = wanted.filter(
    (entry) => !restrictions.some((own) => own.permission_type === entry.permission_type && own.permission_value === entry.permission_value),
  );
  if (beyond.length > 0) {
    throw new ApiError(
      'cannot_grant_unheld_permissions',
      'Cannot grant model access your API key does not have: model_permissions must stay within the calling key\'s own',
      { param: 'model_permissions' },
    );
  }
  return wanted;
}

/**
 * Throws 403 `target_holds_unheld_permissions` when a call made with an API key would change or
 * reveal a key (a sibling, or itself) that carries more than the calling key: more permissions or
 * more models. Users (token callers) are not concerned; their bounds are the owner rules.
 *
 * @param targetPermissions - the target key's effective permissions (its owner's, narrowed by it).
 */
export function assertKeyWithinCaller(caller: Principal, targetPermissions: ReadonlySet<Permission>, targetModels: readonly ModelPermission[]): void {
  if (caller.apiKey === null) return;
  const widerPermissions = [...targetPermissions].some((permission) => !caller.permissions.has(permission) && !caller.permissions.has('admin'));
  let widerModels = false;
  try {
    boundedModelPermissions(caller, targetModels.length === 0 ? [] : targetModels, []);
  } catch {
    widerModels = true;
  }
  if (widerPermissions || widerModels) {
    throw new ApiError('target_holds_unheld_permissions', 'This API key carries more than the key you call with; use a wider credential to change it');
  }
}
