/**
 * Turns stored records into the contract's response shapes. Secrets (password hashes, ciphertexts)
 * never leave through here.
 */
import type { components } from '../generated/openapi.js';
import type { ApiKeyRecord, UserRecord } from '../auth/records.js';
import { isUnlimited, limitsToWire, type UsageLimits } from '../limits/usage-limits.js';

type Schemas = components['schemas'];

/** Recent {@link isoTime} answers: the same few times (a caller's `created_at`, …) are formatted on every call. */
const recentIsoTimes = new Map<number, string>();
const RECENT_ISO_TIMES = 4096;

/** An epoch-millisecond time as an ISO 8601 UTC string. */
export function isoTime(epochMs: number): string {
  let iso = recentIsoTimes.get(epochMs);
  if (iso === undefined) {
    iso = new Date(epochMs).toISOString();
    if (recentIsoTimes.size >= RECENT_ISO_TIMES) recentIsoTimes.clear();
    recentIsoTimes.set(epochMs, iso);
  }
  return iso;
}

function isoOrNull(epochMs: number | null): string | null {
  return epochMs === null ? null : isoTime(epochMs);
}

/** The `limits` of a key or user: every field present (null: no limit), or null when nothing is limited. */
export function presentLimits(limits: UsageLimits): Schemas['UsageLimits'] | null {
  return isUnlimited(limits) ? null : limitsToWire(limits);
}

/** The `User` shape. */
export function presentUser(user: UserRecord): Schemas['User'] {
  return {
    id: user.id,
    username: user.username,
    // Only the contract's sources are ever stored until the contract names more (the port already knows `oidc`).
    source: user.source as Schemas['User']['source'],
    enabled: user.enabled,
    must_change_password: user.mustChangePassword,
    permissions: user.permissions,
    limits: presentLimits(user.limits),
    created_at: isoTime(user.createdAt),
    updated_at: isoTime(user.updatedAt),
  };
}

/** The `ApiKey` shape; `currentEncryptionKeyId` decides `revealable`. */
export function presentApiKey(key: ApiKeyRecord, currentEncryptionKeyId: string): Schemas['ApiKey'] {
  return {
    id: key.id,
    user_id: key.userId,
    owner_username: key.ownerUsername,
    key_prefix: key.keyPrefix,
    name: key.name,
    description: key.description,
    enabled: key.enabled,
    expires_at: isoOrNull(key.expiresAt),
    last_used_at: isoOrNull(key.lastUsedAt),
    model_permissions: key.modelPermissions,
    permissions: key.permissions,
    rate_limit_max_failures: key.rateLimit.maxFailures,
    rate_limit_window_seconds: key.rateLimit.windowSeconds,
    rate_limit_ban_seconds: key.rateLimit.banSeconds,
    limits: presentLimits(key.limits),
    revealable: key.encryptionKeyId === currentEncryptionKeyId,
    created_at: isoTime(key.createdAt),
    updated_at: isoTime(key.updatedAt),
  };
}
