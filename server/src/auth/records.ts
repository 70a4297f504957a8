/**
 * Users and API keys as the services see them: the storage port's records with their strings
 * narrowed to the contract's types (permissions in their canonical order, model restrictions in the
 * API's `ModelPermission` shape). The port stays free of wire types; the narrowing happens here,
 * once per read from storage (the authenticator caches the result).
 */
import type { components } from '../generated/openapi.js';
import type { ApiKeyRecord as StoredApiKey, ModelRestriction } from '../storage/port/api-keys.js';
import type { UserRecord as StoredUser } from '../storage/port/users.js';
import { loadLimits, type UsageLimits } from '../limits/usage-limits.js';
import { sortPermissions, type Permission } from './permissions.js';

/** One model restriction of a key, as the API spells it. */
export type ModelPermission = components['schemas']['ModelPermission'];

/** A user with their permissions, in canonical order, and their usage limits. */
export interface UserRecord extends Omit<StoredUser, 'permissions' | 'limitsJson'> {
  permissions: Permission[];
  /** The user's usage limits (`noLimits` when none are set). */
  limits: UsageLimits;
}

/** An API key (never its plaintext), with its narrowed permissions, model restrictions and usage limits. */
export interface ApiKeyRecord extends Omit<StoredApiKey, 'permissions' | 'modelRestrictions' | 'limitsJson'> {
  modelPermissions: ModelPermission[];
  permissions: Permission[] | null;
  /** The key's own usage limits (`noLimits` when none are set). */
  limits: UsageLimits;
}

/** The service view of a stored user. Only validated permission names are ever stored. */
export function userFromStore(stored: StoredUser): UserRecord {
  const { limitsJson, ...rest } = stored;
  return { ...rest, permissions: sortPermissions(stored.permissions as readonly Permission[]), limits: loadLimits(limitsJson) };
}

/** {@link userFromStore}, passing null through. */
export function userOrNull(stored: StoredUser | null): UserRecord | null {
  return stored === null ? null : userFromStore(stored);
}

/** The service view of a stored key. */
export function apiKeyFromStore(stored: StoredApiKey): ApiKeyRecord {
  const { modelRestrictions, permissions, limitsJson, ...rest } = stored;
  return {
    ...rest,
    limits: loadLimits(limitsJson),
    modelPermissions: modelRestrictions.map((entry) => ({ permission_type: entry.type, permission_value: entry.value }) as ModelPermission),
    permissions: permissions === null ? null : [...(permissions as readonly Permission[])],
  };
}

/** {@link apiKeyFromStore}, passing null through. */
export function apiKeyOrNull(stored: StoredApiKey | null): ApiKeyRecord | null {
  return stored === null ? null : apiKeyFromStore(stored);
}

/** The port's spelling of a key's model restrictions. */
export function modelRestrictions(modelPermissions: readonly ModelPermission[]): ModelRestriction[] {
  return modelPermissions.map((entry) => ({ type: entry.permission_type, value: entry.permission_value ?? null }));
}
