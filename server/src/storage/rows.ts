/**
 * Rows both adapters read with the same columns and types, and the port's records made of them: one
 * definition, so the SQLite and PostgreSQL adapters cannot drift apart in how they read a table.
 * (Tables whose columns differ by dialect, such as a boolean stored as 0/1 on SQLite, keep their
 * mapping in each adapter.)
 */
import type { ActiveBan, BruteForceEntry, BruteForceScope } from './port/brute-force.js';
import type { OidcCliCode, OidcLoginRequest } from './port/oidc.js';
import type { RefreshTokenRecord } from './port/sessions.js';
import type { UsageTotal } from './port/usage.js';

/** A `brute_force_entries` row. */
export interface BruteForceRow {
  scope: BruteForceScope;
  subject: string;
  ip: string | null;
  key_id: string | null;
  user_id: string | null;
  failures: number;
  window_started_at: number;
  last_failure_at: number;
  lockouts: number;
  banned_until: number | null;
  in_flight: number;
  in_flight_since: number | null;
}

/** A `brute_force_entries` row of an active ban, with its user's name. */
export interface BanRow extends Pick<BruteForceRow, 'scope' | 'ip' | 'key_id' | 'user_id' | 'failures' | 'lockouts' | 'banned_until'> {
  username: string | null;
}

/** The counter a row holds. */
export const bruteForceEntryOf = (row: BruteForceRow): BruteForceEntry => ({
  scope: row.scope,
  subject: row.subject,
  ip: row.ip,
  keyId: row.key_id,
  userId: row.user_id,
  failures: row.failures,
  windowStartedAt: row.window_started_at,
  lastFailureAt: row.last_failure_at,
  lockouts: row.lockouts,
  bannedUntil: row.banned_until,
  inFlight: row.in_flight,
  inFlightSince: row.in_flight_since,
});

/** The ban a row of an active ban holds. */
export const activeBanOf = (row: BanRow): ActiveBan => ({
  scope: row.scope,
  ip: row.ip,
  keyId: row.key_id,
  userId: row.user_id,
  username: row.username,
  failures: row.failures,
  lockouts: row.lockouts,
  bannedUntil: row.banned_until as number,
});

/** A refresh token joined with its family. */
export interface RefreshTokenRow {
  family_id: string;
  user_id: string;
  expires_at: number;
  rotated_at: number | null;
  absolute_expires_at: number;
}

/** The record of a refresh token row. */
export const refreshTokenOf = (row: RefreshTokenRow): RefreshTokenRecord => ({
  familyId: row.family_id,
  userId: row.user_id,
  expiresAt: row.expires_at,
  rotatedAt: row.rotated_at,
  familyExpiresAt: row.absolute_expires_at,
});

/** An `oidc_login_requests` row (the columns a taken request returns). */
export interface OidcLoginRequestRow {
  browser_hash: Buffer | null;
  nonce: string;
  code_verifier: string;
  cli_redirect_uri: string | null;
  cli_code_challenge: string | null;
  expires_at: number;
}

/** A taken sign-in, or null when there was none or it expired at `now`. */
export function liveLoginRequest(row: OidcLoginRequestRow | null | undefined, now: number): OidcLoginRequest | null {
  if (row == null || row.expires_at <= now) return null;
  return {
    browserHash: row.browser_hash,
    nonce: row.nonce,
    codeVerifier: row.code_verifier,
    cliRedirectUri: row.cli_redirect_uri,
    cliCodeChallenge: row.cli_code_challenge,
    expiresAt: row.expires_at,
  };
}

/** An `oidc_cli_codes` row (the columns a taken code returns). */
export interface OidcCliCodeRow {
  user_id: string;
  code_challenge: string;
  expires_at: number;
}

/** A taken CLI code, or null when there was none or it expired at `now`. */
export function liveCliCode(row: OidcCliCodeRow | null | undefined, now: number): OidcCliCode | null {
  if (row == null || row.expires_at <= now) return null;
  return { userId: row.user_id, codeChallenge: row.code_challenge, expiresAt: row.expires_at };
}

/** A `usage_totals` row. */
export interface UsageTotalRow {
  hour_start: number;
  key_id: string;
  user_id: string;
  model: string;
  calls: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  estimated_calls: number;
  latency_ms_sum: number;
}

/** How a total's key or user is stored in the primary key: '' stands for "none". */
export const storedPartyId = (id: string | null): string => id ?? '';

/** The total a row holds. */
export const usageTotalOf = (row: UsageTotalRow): UsageTotal => ({
  hourStart: row.hour_start,
  keyId: row.key_id === '' ? null : row.key_id,
  userId: row.user_id === '' ? null : row.user_id,
  model: row.model,
  calls: row.calls,
  errors: row.errors,
  promptTokens: row.prompt_tokens,
  completionTokens: row.completion_tokens,
  estimatedCalls: row.estimated_calls,
  latencyMsSum: row.latency_ms_sum,
});
