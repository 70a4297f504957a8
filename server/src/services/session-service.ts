/**
 * Login sessions: password login, refresh-token rotation with reuse detection, logout and changing
 * one's own password. A session ("family") has an absolute lifetime that rotation never extends.
 */
import { randomUUID } from 'node:crypto';
import type { AuditContext } from '../audit/request-audit.js';
import type { BruteForceService, LoginRefusal, LoginTicket } from '../brute-force/brute-force-service.js';
import type { UsernameMarker } from '../crypto/username-marker.js';
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

/** How many times a rotated refresh token may be exchanged again inside the grace window. */
export const GRACE_EXCHANGES = 1;

/** The 429 of a login refused before its password was checked. */
function refusedLogin(refusal: LoginRefusal): ApiError {
  const headers = { 'retry-after': String(refusal.retryAfterSeconds) };
  if (refusal.reason === 'ip') {
    return new ApiError('ip_banned', `Too many failed attempts from this address; try again in ${refusal.retryAfterSeconds} seconds`, { headers });
  }
  return new ApiError('login_throttled', 'Too many login attempts in progress or failed from this address; try again shortly', { headers });
}

const invalidCredentials = () => new ApiError('invalid_credentials', 'Incorrect username or password');
const invalidRefreshToken = () => new ApiError('invalid_refresh_token', 'Invalid or expired refresh token; log in again');

/** Issues, rotates and ends login sessions. */
export class SessionService {
  readonly #storage: Storage;
  readonly #tokens: AccessTokens;
  readonly #config: ServerConfig;
  readonly #bruteForce: BruteForceService;
  readonly #usernameMarker: UsernameMarker;
  readonly #clock: Clock;

  constructor(storage: Storage, tokens: AccessTokens, config: ServerConfig, bruteForce: BruteForceService, usernameMarker: UsernameMarker, clock: Clock) {
    this.#storage = storage;
    this.#tokens = tokens;
    this.#config = config;
    this.#bruteForce = bruteForce;
    this.#usernameMarker = usernameMarker;
    this.#clock = clock;
  }

  /**
   * Checks a username and password and starts a session. Unknown users, wrong passwords, disabled
   * and locked accounts fail alike (same status and message), after the same hashing work. The
   * attempt reserves its place in the failure counters of the address and the account before the
   * hash (refused with 429 when the address is banned or has as many attempts failed and in flight
   * as its limit allows), and the bans are checked again after it; a failure then counts, a success
   * resets the account's count.
   */
  async login(username: string, password: string, attempt: LoginAttempt): Promise<TokenPair> {
    const user = userOrNull(await this.#storage.users.findByUsername(username));
    if (attempt.audit !== undefined) {
      // A name that matches no account may be a password typed in the wrong field: never stored as text.
      attempt.audit.username = user?.username ?? this.#usernameMarker.of(username);
      attempt.audit.userId = user?.id ?? null;
    }
    const ticket = await this.#bruteForce.reserveLogin(attempt.clientIp, user?.id ?? null);
    if ('reason' in ticket) {
      if (attempt.audit !== undefined) attempt.audit.reason = ticket.reason === 'ip' ? 'ip_banned' : 'login_throttled';
      throw refusedLogin(ticket);
    }
    const passwordMatches = await this.#verifyReserved(ticket, user?.passwordHash ?? null, password);
    const current = user === null ? null : userOrNull(await this.#storage.users.findById(user.id));
    // A single sign-on account has no password: refused like an unknown user, whatever was sent.
    const reason =
      user === null || current === null
        ? 'unknown_user'
        : current.source === 'oidc'
          ? 'single_sign_on_account'
          : ticket.accountLocked || (await this.#bruteForce.accountLockedUntil(current.id)) !== null
            ? 'account_locked'
            : !passwordMatches
              ? 'wrong_password'
              : !current.enabled
                ? 'account_disabled'
                : null;
    // Checked again after the hash: a ban another request set meanwhile also stops this attempt.
    await this.#bruteForce.refreshBans();
    const banned = this.#bruteForce.ipBan(attempt.clientIp);
    if (reason !== null || banned !== null || current === null) {
      if (attempt.audit !== undefined) attempt.audit.reason = reason ?? 'ip_banned';
      await this.#bruteForce.settleLogin(ticket, false);
      if (reason === null && banned !== null) throw refusedLogin({ reason: 'ip', retryAfterSeconds: banned.retryAfterSeconds });
      throw invalidCredentials();
    }
    await this.#bruteForce.settleLogin(ticket, true);
    return this.startSession(current);
  }

  /** Verifies a password under a reservation; the reservation is released if hashing fails. */
  async #verifyReserved(ticket: LoginTicket, passwordHash: string | null, password: string): Promise<boolean> {
    try {
      return await verifyPassword(passwordHash, password);
    } catch (error) {
      await this.#bruteForce.settleLogin(ticket, false);
      throw error;
    }
  }

  /**
   * Starts a session for an account whose identity was proven elsewhere (a single sign-on): the
   * same token pair, refresh token and live permissions as a password login.
   */
  async startSession(user: UserRecord): Promise<TokenPair> {
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
      if (record.rotatedAt !== null) {
        // Inside the grace window a rotated token may be exchanged once more (two tabs refreshing
        // together), never again: each exchange would fork a branch that reuse detection never sees.
        const withinGrace = now - record.rotatedAt < this.#config.refreshReuseGraceSeconds * 1000;
        if (!withinGrace || !(await tx.sessions.countGraceExchange(digest, GRACE_EXCHANGES))) {
          await tx.sessions.deleteFamily(record.familyId);
          return 'reused' as const;
        }
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
   * account and starts a fresh one for the caller. The current password is a guess like a login:
   * it reserves its place in the counters of the address and the account first, and a wrong one
   * counts exactly like a failed login (a locked account answers as a wrong password).
   */
  async changeOwnPassword(user: UserRecord, currentPassword: string, newPassword: string, attempt: LoginAttempt): Promise<TokenPair> {
    await this.verifyCurrentPassword(user, currentPassword, attempt);
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

  /**
   * Checks the current password of `user` exactly as a login checks a password: reserved against
   * the address and the account before the hash, a wrong one counted as a failed login.
   *
   * @throws {ApiError} 403 `current_password_incorrect` (also for a locked account), 429 when the address is banned or throttled.
   */
  async verifyCurrentPassword(user: UserRecord, currentPassword: string | undefined, attempt: LoginAttempt): Promise<void> {
    const ticket = await this.#bruteForce.reserveLogin(attempt.clientIp, user.id);
    if ('reason' in ticket) throw refusedLogin(ticket);
    const matches = (await this.#verifyReserved(ticket, user.passwordHash, currentPassword ?? '')) && currentPassword !== undefined && !ticket.accountLocked;
    if (!matches || (await this.#bruteForce.accountLockedUntil(user.id)) !== null) {
      if (attempt.audit !== undefined) attempt.audit.reason = ticket.accountLocked ? 'account_locked' : 'wrong_password';
      await this.#bruteForce.settleLogin(ticket, false);
      throw new ApiError('current_password_incorrect', 'Current password is incorrect', { param: 'current_password' });
    }
    await this.#bruteForce.settleLogin(ticket, true);
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
