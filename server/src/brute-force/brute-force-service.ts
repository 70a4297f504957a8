/**
 * Brute-force protection. Counts failed logins per account and per client IP, and failed API keys
 * and access tokens per IP and per (IP, credential); bans and lockouts expire; account lockouts
 * grow with every repeated lockout (Keycloak's temporary lockout). All state is in the database,
 * so it is shared by every process on one `SVC_HOME` and survives restarts.
 *
 * A login reserves its place in the counters before the password hash ({@link BruteForceService.reserveLogin})
 * and settles it after ({@link BruteForceService.settleLogin}), so concurrent attempts cannot all be
 * evaluated. The hot path (a request with a valid credential) only reads an in-process copy of the active IP
 * and key bans, reloaded whenever the change tracker reports a write by any process.
 */
import type { Storage } from '../storage/storage.js';
import type { ActiveBan, BruteForceEntry, BruteForceScope } from '../storage/brute-force-repository.js';
import { mergeSettings, parseStoredSettings, type RateLimitRule, type SecuritySettings, type SecuritySettingsUpdate } from './security-settings.js';

/** A ban, lockout, unban or unlock, as listeners hear of it. */
export interface BruteForceEvent {
  action: 'ban' | 'unban';
  scope: BruteForceScope;
  ip: string | null;
  keyId: string | null;
  userId: string | null;
  /** When the ban ends (bans only). */
  bannedUntil: number | null;
  /** Why: `failures` for a ban, `admin` for an unban by an administrator. */
  cause: 'failures' | 'admin';
}

/**
 * Hears of every ban and unban this process makes (the audit trail and the metrics register one).
 * Called synchronously after the change is committed; must not throw.
 */
export interface BruteForceListener {
  onBruteForceEvent(event: BruteForceEvent): void;
}

/** How long a caller stays refused. */
export interface BanStatus {
  scope: 'ip' | 'key';
  retryAfterSeconds: number;
}

const STALE_PRUNE_INTERVAL_MS = 60_000;
/** A reservation older than this was left by a crashed process (a login takes well under a second). */
const IN_FLIGHT_STALE_MS = 60_000;
/** Logins evaluated at once from one client IP, whatever the failure limit. */
export const MAX_LOGINS_IN_FLIGHT_PER_ADDRESS = 8;
/** Logins evaluated at once against one account. */
export const MAX_LOGINS_IN_FLIGHT_PER_ACCOUNT = 4;

/**
 * A login attempt's reserved place in the failure counters, taken before the password hash and
 * settled after it with {@link BruteForceService.settleLogin}.
 */
export interface LoginTicket {
  readonly ip: string;
  /** The account whose counter holds a reservation; null for an unknown user or a locked account. */
  readonly reservedUserId: string | null;
  /**
   * True when the account may not be tried now: locked, or as many attempts in flight as its
   * lockout allows. The attempt then fails whatever the password (after the same hashing work).
   */
  readonly accountLocked: boolean;
}

/** Why a login attempt was refused before any password was checked. */
export interface LoginRefusal {
  /** `ip`: the address is banned; `throttled`: too many attempts in flight from it. */
  reason: 'ip' | 'throttled';
  retryAfterSeconds: number;
}

/** The subject an (IP, credential) counter and ban is stored under, and the target audit records name it by. */
export function keySubject(ip: string, keyId: string): string {
  return `${ip} ${keyId}`;
}

/** Counts failures, bans, locks and lifts bans. */
export class BruteForceService {
  readonly #storage: Storage;
  readonly #listeners: BruteForceListener[] = [];
  #cacheEpoch = -1;
  #ipBans = new Map<string, number>();
  #keyBans = new Map<string, number>();
  #lastPrune = 0;

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  /** Registers a listener for bans and unbans. */
  addListener(listener: BruteForceListener): void {
    this.#listeners.push(listener);
  }

  /** The settings in force (read from the database). */
  settings(): SecuritySettings {
    return parseStoredSettings(this.#storage.bruteForce.settingsJson());
  }

  /** Applies a partial update and stores it. @throws {ApiError} 400 (nothing changes) when a value is invalid. */
  updateSettings(update: SecuritySettingsUpdate): SecuritySettings {
    return this.#storage.transaction(() => {
      const merged = mergeSettings(this.settings(), update);
      this.#storage.bruteForce.saveSettingsJson(JSON.stringify(merged), Date.now());
      return merged;
    });
  }

  /**
   * Counts a failure of a known API key (disabled or expired) from `ip`, when the key has its own
   * threshold (`rate_limit_max_failures`): per (IP, key), under the key's rule, whose window and
   * ban length default to the global `key` setting. Keys without one are not counted (their
   * failures cannot be guesses: the key exists).
   */
  recordKnownKeyFailure(ip: string, keyId: string, digest: Buffer): void {
    const key = this.#storage.apiKeys.findByDigest(digest);
    if (key === null || key.rateLimit.maxFailures === null) return;
    const now = Date.now();
    const global = this.settings().key;
    const rule: RateLimitRule = {
      max_failures: key.rateLimit.maxFailures,
      window_seconds: key.rateLimit.windowSeconds ?? global.window_seconds,
      ban_seconds: key.rateLimit.banSeconds ?? global.ban_seconds,
    };
    const events = this.#storage.transaction(() => {
      const found: BruteForceEvent[] = [];
      this.#countWindowed('key', keySubject(ip, keyId), { ip, keyId, userId: null }, rule, now, found);
      return found;
    });
    this.#emit(events);
  }

  /** The active (IP, credential) bans of the credential `keyId`. */
  bansOfKey(keyId: string): ActiveBan[] {
    return this.activeBans('key').filter((ban) => ban.keyId === keyId);
  }

  /** Lifts every active ban of the credential `keyId`; answers how many. */
  unbanKeyEverywhere(keyId: string): number {
    return this.bansOfKey(keyId).reduce((lifted, ban) => lifted + this.unban('key', { ip: ban.ip ?? '', keyId }), 0);
  }

  /** Whether `ip` is banned (the hot path: an in-memory lookup). */
  ipBan(ip: string, now = Date.now()): BanStatus | null {
    this.#refreshCache();
    return banStatus('ip', this.#ipBans.get(ip), now);
  }

  /** Whether any (IP, credential) ban is active, so callers compute a credential id only when needed. */
  hasKeyBans(): boolean {
    this.#refreshCache();
    return this.#keyBans.size > 0;
  }

  /** Whether the credential with id `keyId` is banned for `ip`. */
  keyBan(ip: string, keyId: string, now = Date.now()): BanStatus | null {
    this.#refreshCache();
    return banStatus('key', this.#keyBans.get(keySubject(ip, keyId)), now);
  }

  /** Counts a failed API key or access token from `ip` (per IP and per IP and credential). */
  recordCredentialFailure(ip: string, keyId: string): void {
    const now = Date.now();
    const settings = this.settings();
    const events = this.#storage.transaction(() => {
      const found: BruteForceEvent[] = [];
      this.#countWindowed('ip', ip, { ip, keyId: null, userId: null }, settings.ip, now, found);
      this.#countWindowed('key', keySubject(ip, keyId), { ip, keyId, userId: null }, settings.key, now, found);
      this.#pruneStale(settings, now);
      return found;
    });
    this.#emit(events);
  }

  /** When the account's lockout ends, or null when it is not locked. */
  accountLockedUntil(userId: string, now = Date.now()): number | null {
    const entry = this.#storage.bruteForce.find('account', userId);
    return entry?.bannedUntil != null && entry.bannedUntil > now ? entry.bannedUntil : null;
  }

  /**
   * Reserves a login attempt from `ip` against `userId` (null for an unknown username), in one
   * write-locked transaction, before the password hash runs: refuses it when the address is banned,
   * or when its failures plus the attempts already in flight reach the limit or the in-flight cap.
   * So however many attempts arrive at once, no more are evaluated than the limits allow.
   */
  reserveLogin(ip: string, userId: string | null): LoginTicket | LoginRefusal {
    const now = Date.now();
    const settings = this.settings();
    const staleBefore = now - IN_FLIGHT_STALE_MS;
    return this.#storage.transaction(() => {
      const repository = this.#storage.bruteForce;
      const address = repository.find('ip', ip);
      if (address?.bannedUntil != null && address.bannedUntil > now) {
        return { reason: 'ip', retryAfterSeconds: secondsUntil(address.bannedUntil, now) };
      }
      const addressFailures = address === null || now - address.windowStartedAt > settings.ip.window_seconds * 1000 ? 0 : address.failures;
      const addressInFlight = repository.inFlight('ip', ip, staleBefore);
      if (addressFailures + addressInFlight >= settings.ip.max_failures || addressInFlight >= MAX_LOGINS_IN_FLIGHT_PER_ADDRESS) {
        return { reason: 'throttled', retryAfterSeconds: 1 };
      }
      repository.setInFlight({ scope: 'ip', subject: ip, ip, keyId: null, userId: null }, addressInFlight + 1, now, now);
      if (userId === null || this.#storage.users.findById(userId) === null) return { ip, reservedUserId: null, accountLocked: false };
      const account = repository.find('account', userId);
      if (account?.bannedUntil != null && account.bannedUntil > now) return { ip, reservedUserId: null, accountLocked: true };
      const quiet = account === null || now - account.lastFailureAt > settings.login.failure_reset_seconds * 1000;
      const failuresThisRound = quiet ? 0 : account.failures % settings.login.failures_before_lockout;
      const accountInFlight = repository.inFlight('account', userId, staleBefore);
      if (failuresThisRound + accountInFlight >= settings.login.failures_before_lockout || accountInFlight >= MAX_LOGINS_IN_FLIGHT_PER_ACCOUNT) {
        return { ip, reservedUserId: null, accountLocked: true };
      }
      repository.setInFlight({ scope: 'account', subject: userId, ip, keyId: null, userId }, accountInFlight + 1, now, now);
      return { ip, reservedUserId: userId, accountLocked: false };
    });
  }

  /**
   * Settles a reserved login: releases its places and, for a failure, counts it against the
   * address and (when reserved) the account, banning or locking when the limit is reached; a
   * success resets the account's count.
   */
  settleLogin(ticket: LoginTicket, succeeded: boolean): void {
    const now = Date.now();
    const settings = this.settings();
    const staleBefore = now - IN_FLIGHT_STALE_MS;
    const events = this.#storage.transaction(() => {
      const repository = this.#storage.bruteForce;
      const found: BruteForceEvent[] = [];
      const release = (scope: 'ip' | 'account', subject: string, userId: string | null) => {
        const inFlight = repository.inFlight(scope, subject, staleBefore);
        repository.setInFlight({ scope, subject, ip: ticket.ip, keyId: null, userId }, Math.max(0, inFlight - 1), null, now);
      };
      release('ip', ticket.ip, null);
      if (ticket.reservedUserId !== null) release('account', ticket.reservedUserId, ticket.reservedUserId);
      if (succeeded) {
        if (ticket.reservedUserId !== null) repository.delete('account', ticket.reservedUserId, now);
        return found;
      }
      this.#countWindowed('ip', ticket.ip, { ip: ticket.ip, keyId: null, userId: null }, settings.ip, now, found);
      if (ticket.reservedUserId !== null && this.#storage.users.findById(ticket.reservedUserId) !== null) {
        this.#countAccount(ticket.reservedUserId, ticket.ip, settings.login, now, found);
      }
      this.#pruneStale(settings, now);
      return found;
    });
    this.#emit(events);
  }

  /**
   * Counts one failure against `ip` alone, outside a login (a refused single sign-on callback or
   * code exchange): the address's counter moves, and reaching its limit bans it.
   */
  recordAddressFailure(ip: string): void {
    const now = Date.now();
    const settings = this.settings();
    const events = this.#storage.transaction(() => {
      const found: BruteForceEvent[] = [];
      this.#countWindowed('ip', ip, { ip, keyId: null, userId: null }, settings.ip, now, found);
      this.#pruneStale(settings, now);
      return found;
    });
    this.#emit(events);
  }

  /** Active bans (and lockouts) of `scope`. */
  activeBans(scope: BruteForceScope): ActiveBan[] {
    return this.#storage.bruteForce.activeBans(scope, Date.now());
  }

  /** Lifts one ban; answers how many were lifted (0 or 1). */
  unban(scope: BruteForceScope, subject: { ip?: string; keyId?: string; userId?: string }): number {
    const now = Date.now();
    const key = subjectOf(scope, subject);
    const lifted = this.#storage.transaction(() => this.#storage.bruteForce.delete(scope, key, now));
    if (lifted) {
      this.#emit([{ action: 'unban', scope, ip: subject.ip ?? null, keyId: subject.keyId ?? null, userId: subject.userId ?? null, bannedUntil: null, cause: 'admin' }]);
    }
    return lifted ? 1 : 0;
  }

  /** Lifts every ban of `scope`; answers how many. */
  unbanAll(scope: BruteForceScope): number {
    const now = Date.now();
    const lifted = this.#storage.transaction(() => this.#storage.bruteForce.deleteActiveBans(scope, now));
    this.#emit(lifted.map((ban) => ({ action: 'unban', scope, ip: ban.ip, keyId: ban.keyId, userId: ban.userId, bannedUntil: null, cause: 'admin' })));
    return lifted.length;
  }

  #countWindowed(
    scope: 'ip' | 'key',
    subject: string,
    identity: Pick<BruteForceEntry, 'ip' | 'keyId' | 'userId'>,
    rule: RateLimitRule,
    now: number,
    events: BruteForceEvent[],
  ): void {
    const entry = this.#storage.bruteForce.find(scope, subject) ?? newEntry(scope, subject, identity, now);
    if (entry.bannedUntil !== null && entry.bannedUntil > now) return;
    if (now - entry.windowStartedAt > rule.window_seconds * 1000) {
      entry.failures = 0;
      entry.windowStartedAt = now;
    }
    entry.failures += 1;
    entry.lastFailureAt = now;
    const bans = entry.failures >= rule.max_failures;
    if (bans) {
      entry.failures = 0;
      entry.windowStartedAt = now;
      entry.lockouts += 1;
      entry.bannedUntil = now + rule.ban_seconds * 1000;
      events.push({ action: 'ban', scope, ip: entry.ip, keyId: entry.keyId, userId: null, bannedUntil: entry.bannedUntil, cause: 'failures' });
    }
    this.#storage.bruteForce.save(entry, bans);
  }

  #countAccount(userId: string, ip: string, rule: SecuritySettings['login'], now: number, events: BruteForceEvent[]): void {
    const entry = this.#storage.bruteForce.find('account', userId) ?? newEntry('account', userId, { ip, keyId: null, userId }, now);
    if (entry.bannedUntil !== null && entry.bannedUntil > now) return;
    // Keycloak: after `failure_reset_seconds` without a failure the count starts over.
    if (now - entry.lastFailureAt > rule.failure_reset_seconds * 1000) {
      entry.failures = 0;
      entry.lockouts = 0;
      entry.windowStartedAt = now;
    }
    entry.failures += 1;
    entry.lastFailureAt = now;
    const locks = entry.failures % rule.failures_before_lockout === 0;
    if (locks) {
      entry.lockouts += 1;
      const waitSeconds = Math.min(rule.wait_increment_seconds * entry.lockouts, rule.max_wait_seconds);
      entry.bannedUntil = now + waitSeconds * 1000;
      events.push({ action: 'ban', scope: 'account', ip, keyId: null, userId, bannedUntil: entry.bannedUntil, cause: 'failures' });
    }
    this.#storage.bruteForce.save(entry, locks);
  }

  #pruneStale(settings: SecuritySettings, now: number): void {
    if (now - this.#lastPrune < STALE_PRUNE_INTERVAL_MS) return;
    this.#lastPrune = now;
    const longestMemory = Math.max(settings.ip.window_seconds, settings.key.window_seconds, settings.login.failure_reset_seconds) * 1000;
    this.#storage.bruteForce.pruneStale(now - longestMemory, now);
  }

  /**
   * Reloads the active bans when any process wrote. If the database cannot be read, the bans known
   * so far stay in force: the request then needs the database for its own work anyway and fails
   * closed there (R34), while a malformed credential still gets its 401 without it (R22).
   */
  #refreshCache(): void {
    let epoch: number;
    const ipBans = new Map<string, number>();
    const keyBans = new Map<string, number>();
    try {
      epoch = this.#storage.tracker.epoch();
      if (epoch === this.#cacheEpoch) return;
      for (const ban of this.#storage.bruteForce.activeBans(null, Date.now())) {
        if (ban.scope === 'ip' && ban.ip !== null) ipBans.set(ban.ip, ban.bannedUntil);
        if (ban.scope === 'key' && ban.ip !== null && ban.keyId !== null) keyBans.set(keySubject(ban.ip, ban.keyId), ban.bannedUntil);
      }
    } catch {
      return;
    }
    this.#cacheEpoch = epoch;
    this.#ipBans = ipBans;
    this.#keyBans = keyBans;
  }

  #emit(events: readonly BruteForceEvent[]): void {
    for (const event of events) {
      for (const listener of this.#listeners) listener.onBruteForceEvent(event);
    }
  }
}

function newEntry(scope: BruteForceScope, subject: string, identity: Pick<BruteForceEntry, 'ip' | 'keyId' | 'userId'>, now: number): BruteForceEntry {
  return { scope, subject, ...identity, failures: 0, windowStartedAt: now, lastFailureAt: now, lockouts: 0, bannedUntil: null };
}

function secondsUntil(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / 1000));
}

function banStatus(scope: 'ip' | 'key', until: number | undefined, now: number): BanStatus | null {
  if (until === undefined || until <= now) return null;
  return { scope, retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)) };
}

function subjectOf(scope: BruteForceScope, subject: { ip?: string; keyId?: string; userId?: string }): string {
  if (scope === 'ip') return subject.ip ?? '';
  if (scope === 'key') return keySubject(subject.ip ?? '', subject.keyId ?? '');
  return subject.userId ?? '';
}
