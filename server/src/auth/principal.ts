/**
 * Who is calling: the authenticated user (or nobody, with authentication switched off), how they
 * authenticated, and the permissions in force for this request.
 */
import type { ApiKeyRecord, UserRecord } from './records.js';
import { allPermissions, type PermissionSet } from './permissions.js';

/** The caller of one request. */
export interface Principal {
  authType: 'jwt' | 'api_key' | 'none';
  /** The user, or null when authentication is switched off. */
  user: UserRecord | null;
  /** The key used for this request, if any. */
  apiKey: ApiKeyRecord | null;
  /** The permissions in force: the user's live ones, narrowed by the key's. */
  permissions: PermissionSet;
}

/** The caller when `SVC_AUTH_ADVANCED` is off: nobody in particular, allowed everything. */
export const anonymousPrincipal: Principal = Object.freeze({
  authType: 'none',
  user: null,
  apiKey: null,
  permissions: new Set(allPermissions),
});
