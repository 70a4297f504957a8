/**
 * Login sessions: password login, refresh-token rotation with reuse detection, logout and changing
 * one's own password. A session ("family") has an absolute lifetime that rotation never extends.
 */
import { randomUUID } from 'node:crypto';
import type { AuditContext } from '../audit/request-audit.js';
import type { BruteForceService } from '../brute-force/brute-force-service.js';
import type { ServerConfig } from '../config.js';
import { ApiError } from '../errors.js';
import type { AccessTokens } from '../crypto/access-tokens.js';
import { generateRefreshToken, refreshTokenDigest } from '../crypto/opaque-tokens.js';
import { hashPassword, verifyPassword } from '../crypto/passwords.js';
import { assertPasswordAcceptable } from '../crypto/password-policy.js';
import type { components } from '../generated/openapi.js';
import { userFromStore, userOrNull, type UserRecord } from '../auth/records.js';
import type { Clock } from '../runtime/clock.js';
import type { SessionStore, Storage } from '../storage/port/index.js';

/** The `TokenPair` shape. */
export type TokenPair = components['schemas']['TokenPair'];

/** Where a login attempt comes from, and where its audit facts go. */
export interface LoginAttempt {
  clientIp: string;
  audit?: AuditContext;
}

const invalidCredentials = () => new ApiError('invalid_credentials', 'Incorrect username or password');
const invalidRefreshToken = () => new ApiError('invalid_refresh_token', 'Invalid or expired refresh token; log in again');

/** Issues, rotates and ends login sessions. */
export class SessionService {
  readonly #storage: Storage;
  readonly #tokens: AccessTokens;
  readonly #config: ServerConfig;
  readonly #bruteForce: BruteForceService;
  readonly #clock: Clock;

  constructor(storage: Storage, tokens: AccessTokens, config: ServerConfig, bruteForce: BruteForceService, clock: Clock) {
    this.#storage = storage;
    this.#tokens = tokens;
    this.#config = config;
    this.#bruteForce = bruteForce;
    this.#clock = clock;
  }

  /**
   * Checks a username and password and starts a session. Unknown users, wrong passwords, disabled
   * and locked accounts fail alike (same status and message), after the same hashing work and the
   * same one counter write. Failures count against the client IP and, for an existing unlocked
   * account, against the account; a success resets the account's count.
   */
  async login(username: string, password: string, attempt: LoginAttempt): Promise<TokenPair> {
    const user = userOrNull(await this.#storage.users.findByUsername(username));
    const lockedUntil = user === null ? null : await this.#bruteForce.accountLockedUntil(user.id);
    const passwordMatches = await verifyPassword(user?.passwordHash ?? null, password);
    if (attempt.audit !== undefined) {
      attempt.audit.username = user?.username ?? username;
      attempt.audit.userId = user?.id ?? null;
    }
    const reason =
      user === null ? 'unknown_user' : lockedUntil !== null ? 'account_locked' : !passwordMatches ? 'wrong_password' : !user.enabled ? 'account_disabled' : null;
    if (reason !== null) {
      if (attempt.audit !== undefined) attempt.audit.reason = reason;
      await this.#bruteForce.recordLoginFailure(attempt.clientIp, reason === 'wrong_password' ? (user?.id ?? null) : null);
      throw invalidCredentials();
    }
    if (user === null) throw invalidCredentials();
    await this.#bruteForce.recordLoginSuccess(user.id);
    const now = this.#clock.now();
    const refresh = await this.#storage.transaction(async (tx) => {
      await tx.sessions.pruneExpired(now);
      return this.#startSession(tx.sessions, user.id, now);
    });
    return this.#pair(user, refresh.token, refresh.expiresAt, now);
  }

  /**
   * Exchanges a refresh token for a new pair. A rotated token presented again after the grace
   * window ends the whole session.
   */
  async refresh(presented: string): Promise<TokenPair> {
    const digest = refreshTokenDigest(presented);
    const now = this.#clock.now();
    const outcome = await this.#storage.transaction(async (tx) => {
      const record = await tx.sessions.findToken(digest, { lock: 'update' });
      if (record === null || record.expiresAt <= now || record.familyExpiresAt <= now) return null;
      if (record.rotatedAt !== null && now - record.rotatedAt >= this.#config.refreshReuseGraceSeconds * 1000) {
        await tx.sessions.deleteFamily(record.familyId);
        return 'reused' as const;
      }
      const user = userOrNull(await tx.users.findById(record.userId));
      if (user === null || !user.enabled) {
        await tx.sessions.deleteFamily(record.familyId);
        return null;
      }
      await tx.sessions.markRotated(digest, now);
      return { user, refresh: await this.#addRefreshToken(tx.sessions, record.familyId, now, record.familyExpiresAt) };
    });
    if (outcome === 'reused') {
      throw new ApiError('invalid_refresh_token', 'Refresh token was already used; the session has been ended. Log in again');
    }
    if (outcome === null) throw invalidRefreshToken();
    return this.#pair(outcome.user, outcome.refresh.token, outcome.refresh.expiresAt, now);
  }

  /** Ends the session a refresh token belongs to; unknown tokens are ignored. */
  async logout(presented: string): Promise<void> {
    const record = await this.#storage.sessions.findToken(refreshTokenDigest(presented));
    if (record !== null) await this.#storage.sessions.deleteFamily(record.familyId);
  }

  /**
   * Changes the caller's own password after checking the current one, ends every session of the
   * account and starts a fresh one for the caller.
   */
  async changeOwnPassword(user: UserRecord, currentPassword: string, newPassword: string): Promise<TokenPair> {
    if (!(await verifyPassword(user.passwordHash, currentPassword))) {
      throw new ApiError('current_password_incorrect', 'Current password is incorrect', { param: 'current_password' });
    }
    assertPasswordAcceptable(newPassword, this.#config.passwordMinLength, user.username, 'new_password');
    const passwordHash = await hashPassword(newPassword);
    const now = this.#clock.now();
    const { updated, refresh } = await this.#storage.transaction(async (tx) => {
      if ((await tx.users.findById(user.id, { lock: 'update' })) === null) throw new ApiError('user_not_found', 'User not found');
      await tx.users.setPassword(user.id, passwordHash, false, now);
      await tx.sessions.deleteFamiliesOfUser(user.id);
      const current = await tx.users.findById(user.id);
      if (current === null) throw new ApiError('user_not_found', 'User not found');
      return { updated: userFromStore(current), refresh: await this.#startSession(tx.sessions, user.id, now) };
    });
    return this.#pair(updated, refresh.token, refresh.expiresAt, now);
  }

  /** Starts a session (family) for `userId` with its first refresh token; call inside a transaction. */
  async #startSession(sessions: SessionStore, userId: string, now: number): Promise<{ token: string; expiresAt: number }> {
    const familyId = randomUUID();
    const familyExpiresAt = now + this.#config.sessionMaxLifetimeSeconds * 1000;
    await sessions.createFamily(familyId, userId, now, familyExpiresAt);
    return this.#addRefreshToken(sessions, familyId, now, familyExpiresAt);
  }

  async #addRefreshToken(sessions: SessionStore, familyId: string, now: number, familyExpiresAt: number): Promise<{ token: string; expiresAt: number }> {
    const token = generateRefreshToken();
    const expiresAt = Math.min(now + this.#config.refreshTokenTtlSeconds * 1000, familyExpiresAt);
    await sessions.addToken(refreshTokenDigest(token), familyId, now, expiresAt);
    return { token, expiresAt };
  }

  async #pair(user: UserRecord, refreshToken: string, refreshExpiresAt: number, now: number): Promise<TokenPair> {
    const pair: TokenPair = {
      access_token: await this.#tokens.issue(user.id, user.tokenVersion, user.permissions),
      refresh_token: refreshToken,
      token_type: 'bearer',
      expires_in: this.#tokens.ttlSeconds,
      refresh_expires_in: Math.floor((refreshExpiresAt - now) / 1000),
    };
    if (user.mustChangePassword) pair.must_change_password = true;
    return pair;
  }
}
