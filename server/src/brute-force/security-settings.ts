/**
 * The security settings: per-IP and per-(IP, credential) failure limits with their bans (the
 * reference's shape and defaults), and per-account login lockout in Keycloak's style (failures
 * before a lockout, a wait that grows by a fixed increment with every lockout up to a maximum, and
 * a quiet time after which the failure count starts over).
 */
import { ApiError } from '../errors.js';
import type { components } from '../generated/openapi.js';
import { isUnlimited, limitsFromWire, limitsToWire, type UsageLimits, type UsageLimitsWire } from '../limits/usage-limits.js';

/** The settings, as the API shows and stores them. */
export type SecuritySettings = components['schemas']['SecuritySettings'];
/** A partial update, as `PUT /v1/admin/security/rate-limit` accepts it. */
export type SecuritySettingsUpdate = components['schemas']['SecuritySettingsUpdate'];
/** A failure limit: `max_failures` within `window_seconds` bans for `ban_seconds`. */
export type RateLimitRule = SecuritySettings['ip'];

/** The defaults: the reference's for IPs and keys, Keycloak's for accounts. */
export const defaultSecuritySettings: SecuritySettings = Object.freeze({
  ip: Object.freeze({ max_failures: 10, window_seconds: 300, ban_seconds: 3600 }),
  key: Object.freeze({ max_failures: 5, window_seconds: 300, ban_seconds: 3600 }),
  login: Object.freeze({ failures_before_lockout: 30, wait_increment_seconds: 60, max_wait_seconds: 900, failure_reset_seconds: 43_200 }),
  default_key_limits: null,
}) as SecuritySettings;

/** The wire form of limits as the settings show them: every field present, or null when nothing is limited. */
const normalizedLimits = (wire: UsageLimitsWire | null | undefined): UsageLimitsWire | null => {
  const limits = limitsFromWire(wire);
  return isUnlimited(limits) ? null : limitsToWire(limits);
};

/** The usage limits new keys get when their creator sets none (issue 17). */
export const defaultKeyLimitsOf = (settings: SecuritySettings): UsageLimits => limitsFromWire(settings.default_key_limits);

const DAY = 86_400;
/** Bounds of every field (the contract states the same ones). */
export const settingBounds = {
  max_failures: [1, 1_000_000],
  window_seconds: [1, 30 * DAY],
  ban_seconds: [1, 365 * DAY],
  failures_before_lockout: [1, 1_000_000],
  wait_increment_seconds: [1, 30 * DAY],
  max_wait_seconds: [1, 365 * DAY],
  failure_reset_seconds: [1, 365 * DAY],
} as const;

/** `current` with `update` applied, checked as a whole. @throws {ApiError} 400 when a value is out of range. */
export function mergeSettings(current: SecuritySettings, update: SecuritySettingsUpdate): SecuritySettings {
  const merged: SecuritySettings = {
    ip: { ...current.ip, ...update.ip },
    key: { ...current.key, ...update.key },
    login: { ...current.login, ...update.login },
    // Replaced whole when sent (null removes it), kept otherwise.
    default_key_limits: normalizedLimits(update.default_key_limits !== undefined ? update.default_key_limits : current.default_key_limits),
  };
  assertValid(merged);
  return merged;
}

/** Reads stored settings; anything missing or unreadable falls back to the default of that field. */
export function parseStoredSettings(json: string | null): SecuritySettings {
  if (json === null) return defaultSecuritySettings;
  try {
    return mergeSettings(defaultSecuritySettings, JSON.parse(json) as SecuritySettingsUpdate);
  } catch {
    return defaultSecuritySettings;
  }
}

function assertValid(settings: SecuritySettings): void {
  for (const section of ['ip', 'key', 'login'] as const) {
    for (const [field, value] of Object.entries(settings[section])) {
      const bounds = settingBounds[field as keyof typeof settingBounds] as readonly [number, number] | undefined;
      if (bounds === undefined) throw new ApiError('invalid_request', `Unknown setting ${section}.${field}`, { param: section });
      if (!Number.isInteger(value) || (value as number) < bounds[0] || (value as number) > bounds[1]) {
        throw new ApiError('invalid_request', `${section}.${field} must be a whole number from ${bounds[0]} to ${bounds[1]}`, { param: section });
      }
    }
  }
  if (settings.login.max_wait_seconds < settings.login.wait_increment_seconds) {
    throw new ApiError('invalid_request', 'login.max_wait_seconds must be at least login.wait_increment_seconds', { param: 'login' });
  }
}
