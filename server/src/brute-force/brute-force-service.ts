/**
 * Brute-force protection. Counts failed logins per account and per client IP, and failed API keys
 * and access tokens per IP and per (IP, credential); bans and lockouts expire; account lockouts
 * grow with every repeated lockout (Keycloak's temporary lockout). All state is in the database,
 * so it is shared by every process on one `SVC_HOME` and survives restarts.
 *
 * A login reserves its place in the counters before the password hash ({@link BruteForceService.reserveLogin})
 * and settles it after ({@link BruteForceService.settleLogin}), so concurrent attempts cannot all be
 * evaluated. The hot path (a request with a valid credential) only reads an in-process copy of the active IP
 * and key bans, reloaded whenever the storage's change feed reports a change of the `bans` domain by
 * any process ({@link BruteForceService.refreshBans}; synchronous while nothing changed on SQLite).
 */
import type { Clock } from '../runtime/clock.js';
import type { ActiveBan, BruteForceEntry, BruteForceScope, Epochs, Storage, StorageTx } from '../storage/port/index.js';
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

export type { ActiveBan, BruteForceScope } from '../storage/port/index.js';

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
  readonly #clock: Clock;
  readonly #listeners: BruteForceListener[] = [];
  #cacheEpoch = Number.NaN;
  #ipBans = new Map<string, number>();
  #keyBans = new Map<string, number>();
  #lastPrune = 0;

  constructor(storage: Storage, clock: Clock) {
    this.#storage = storage;
    this.#clock = clock;
    storage.changes.onChange((domain) => {
      if (domain === 'bans') this.#cacheEpoch = Number.NaN;
    });
  }

  /** Registers a listener for bans and unbans. */
  addListener(listener: BruteForceListener): void {
    this.#listeners.push(listener);
  }

  /** The settings in force (read from the database). */
  async settings(): Promise<SecuritySettings> {
    return parseStoredSettings(await this.#storage.settings.read());
  }

  /** Applies a partial update and stores it. @throws {ApiError} 400 (nothing changes) when a value is invalid. */
  updateSettings(update: SecuritySettingsUpdate): Promise<SecuritySettings> {
    const now = this.#clock.now();
    return this.#storage.transaction(
      async (tx) => {
        const merged = mergeSettings(parseStoredSettings(await tx.settings.read()), update);
        await tx.settings.write(JSON.stringify(merged), now);
        return merged;
      },
      { locks: ['settings'] },
    );
  }

  /**
   * Counts a failure of a known API key (disabled or expired) from `ip`, when the key has its own
   * threshold (`rate_limit_max_failures`): per (IP, key), under the key's rule, whose window and
   * ban length default to the global `key` setting. Keys without one are not counted (their
   * failures cannot be guesses: the key exists).
   */
  async recordKnownKeyFailure(ip: string, keyId: string, digest: Buffer): Promise<void> {
    const key = await this.#storage.keys.findByDigest(digest);
    if (key === null || key.rateLimit.maxFailures === null) return;
    const now = this.#clock.now();
    const global = (await this.settings()).key;
    const rule: RateLimitRule = {
      max_failures: key.rateLimit.maxFailures,
      window_seconds: key.rateLimit.windowSeconds ?? global.window_seconds,
      ban_seconds: key.rateLimit.banSeconds ?? global.ban_seconds,
    };
    const events = await this.#storage.transaction(async (tx) => {
      const found: BruteForceEvent[] = [];
      await countWindowed(tx, newEntry('key', keySubject(ip, keyId), { ip, keyId, userId: null }, now), rule, now, found);
      return found;
    });
    this.#emit(events);
  }

  /** The active (IP, credential) bans of the credential `keyId`. */
  async bansOfKey(keyId: string): Promise<ActiveBan[]> {
    return (await this.activeBans('key')).filter((ban) => ban.keyId === keyId);
  }

  /** Lifts every active ban of the credential `keyId`; answers how many. */
  async unbanKeyEverywhere(keyId: string): Promise<number> {
    let lifted = 0;
    for (const ban of await this.bansOfKey(keyId)) lifted += await this.unban('key', { ip: ban.ip ?? '', keyId });
    return lifted;
  }

  /**
   * Brings the in-process copy of the active IP and key bans up to date: null when it already was
   * (decided synchronously, the hot path), else a promise that settles once it is. Never rejects: if
   * the database cannot be read, the bans known so far stay in force; the request then needs the
   * database for its own work anyway and fails closed there (R34), while a malformed credential
   * still gets its 401 without it (R22). `given`: the epochs the request pipeline read once for this
   * request, else a reading of its own.
   */
  refreshBans(given?: Epochs | Promise<Epochs>): Promise<void> | null {
    let epochs: Epochs | Promise<Epochs>;
    try {
      epochs = given ?? this.#storage.changes.current();
    } catch {
      return null;
    }
    if (epochs instanceof Promise) return epochs.then((resolved) => this.#reloadIfChanged(resolved) ?? undefined, () => undefined);
    return this.#reloadIfChanged(epochs);
  }

  #reloadIfChanged(epochs: Epochs): Promise<void> | null {
    if (epochs.bans === this.#cacheEpoch) return null;
    return this.#storage.bruteForce.activeBans(null, this.#clock.now()).then(
      (bans) => {
        const ipBans = new Map<string, number>();
        const keyBans = new Map<string, number>();
        for (const ban of bans) {
          if (ban.scope === 'ip' && ban.ip !== null) ipBans.set(ban.ip, ban.bannedUntil);
          if (ban.scope === 'key' && ban.ip !== null && ban.keyId !== null) keyBans.set(keySubject(ban.ip, ban.keyId), ban.bannedUntil);
        }
        this.#cacheEpoch = epochs.bans;
        this.#ipBans = ipBans;
        this.#keyBans = keyBans;
      },
      () => undefined,
    );
  }

  /** Whether `ip` is banned (the hot path: an in-memory lookup; call {@link refreshBans} first). */
  ipBan(ip: string): BanStatus | null {
    return banStatus('ip', this.#ipBans.get(ip), this.#clock.now());
  }

  /** Whether any (IP, credential) ban is active, so callers compute a credential id only when needed. */
  hasKeyBans(): boolean {
    return this.#keyBans.size > 0;
  }

  /** Whether the credential with id `keyId` is banned for `ip`. */
  keyBan(ip: string, keyId: string): BanStatus | null {
    return banStatus('key', this.#keyBans.get(keySubject(ip, keyId)), this.#clock.now());
  }

  /** Counts a failed API key or access token from `ip` (per IP and per IP and credential). */
  async recordCredentialFailure(ip: string, keyId: string): Promise<void> {
    const now = this.#clock.now();
    const settings = await this.settings();
    const events = await this.#storage.transaction(async (tx) => {
      const found: BruteForceEvent[] = [];
      await countWindowed(tx, newEntry('ip', ip, { ip, keyId: null, userId: null }, now), settings.ip, now, found);
      await countWindowed(tx, newEntry('key', keySubject(ip, keyId), { ip, keyId, userId: null }, now), settings.key, now, found);
      await this.#pruneStale(tx, settings, now);
      return found;
    });
    this.#emit(events);
  }

  /** When the account's lockout ends, or null when it is not locked. */
  async accountLockedUntil(userId: string): Promise<number | null> {
    const now = this.#clock.now();
    const entry = await this.#storage.bruteForce.find('account', userId);
    return entry?.bannedUntil != null && entry.bannedUntil > now ? entry.bannedUntil : null;
  }

  /**
   * Reserves a login attempt from `ip` against `userId` (null for an unknown username), in one
   * write-locked transaction, before the password hash runs: refuses it when the address is banned,
   * or when its failures plus the attempts already in flight reach the limit or the in-flight cap.
   * So however many attempts arrive at once, no more are evaluated than the limits allow.
   */
  async reserveLogin(ip: string, userId: string | null): Promise<LoginTicket | LoginRefusal> {
    const now = this.#clock.now();
    const settings = await this.settings();
    const staleBefore = now - IN_FLIGHT_STALE_MS;
    return this.#storage.transaction(async (tx): Promise<LoginTicket | LoginRefusal> => {
      const address = await tx.bruteForce.lockCounter(newEntry('ip', ip, { ip, keyId: null, userId: null }, now));
      if (address.bannedUntil !== null && address.bannedUntil > now) {
        return { reason: 'ip', retryAfterSeconds: secondsUntil(address.bannedUntil, now) };
      }
      const addressFailures = now - address.windowStartedAt > settings.ip.window_seconds * 1000 ? 0 : address.failures;
      const addressInFlight = inFlightOf(address, staleBefore);
      if (addressFailures + addressInFlight >= settings.ip.max_failures || addressInFlight >= MAX_LOGINS_IN_FLIGHT_PER_ADDRESS) {
        return { reason: 'throttled', retryAfterSeconds: 1 };
      }
      await tx.bruteForce.save({ ...address, inFlight: addressInFlight + 1, inFlightSince: now });
      if (userId === null || (await tx.users.findById(userId)) === null) return { ip, reservedUserId: null, accountLocked: false };
      const account = await tx.bruteForce.lockCounter(newEntry('account', userId, { ip, keyId: null, userId }, now));
      if (account.bannedUntil !== null && account.bannedUntil > now) return { ip, reservedUserId: null, accountLocked: true };
      const quiet = now - account.lastFailureAt > settings.login.failure_reset_seconds * 1000;
      const failuresThisRound = quiet ? 0 : account.failures % settings.login.failures_before_lockout;
      const accountInFlight = inFlightOf(account, staleBefore);
      if (failuresThisRound + accountInFlight >= settings.login.failures_before_lockout || accountInFlight >= MAX_LOGINS_IN_FLIGHT_PER_ACCOUNT) {
        return { ip, reservedUserId: null, accountLocked: true };
      }
      await tx.bruteForce.save({ ...account, inFlight: accountInFlight + 1, inFlightSince: now });
      return { ip, reservedUserId: userId, accountLocked: false };
    });
  }

  /**
   * Settles a reserved login: releases its places and, for a failure, counts it against the
   * address and (when reserved) the account, banning or locking when the limit is reached; a
   * success resets the account's count.
   */
  async settleLogin(ticket: LoginTicket, succeeded: boolean): Promise<void> {
    const now = this.#clock.now();
    const settings = await this.settings();
    const staleBefore = now - IN_FLIGHT_STALE_MS;
    const events = await this.#storage.transaction(async (tx) => {
      const found: BruteForceEvent[] = [];
      // Each counter is locked and written once: its reservation released and, for a failure, counted.
      const address = await tx.bruteForce.lockCounter(newEntry('ip', ticket.ip, { ip: ticket.ip, keyId: null, userId: null }, now));
      address.inFlight = Math.max(0, inFlightOf(address, staleBefore) - 1);
      if (!succeeded) windowedFailure(address, settings.ip, now, found);
      await tx.bruteForce.save(address);
      const userId = ticket.reservedUserId;
      if (userId !== null && succeeded) await tx.bruteForce.delete('account', userId, now);
      if (userId !== null && !succeeded) {
        const account = await tx.bruteForce.lockCounter(newEntry('account', userId, { ip: ticket.ip, keyId: null, userId }, now));
        account.inFlight = Math.max(0, inFlightOf(account, staleBefore) - 1);
        if ((await tx.users.findById(userId)) !== null) accountFailure(account, { ip: ticket.ip, userId }, settings.login, now, found);
        await tx.bruteForce.save(account);
      }
      if (!succeeded) await this.#pruneStale(tx, settings, now);
      return found;
    });
    this.#emit(events);
  }

  /**
   * Counts one failure against `ip` alone, outside a login (a refused single sign-on callback or
   * code exchange): the address's counter moves, and reaching its limit bans it.
   */
  async recordAddressFailure(ip: string): Promise<void> {
    const now = this.#clock.now();
    const settings = await this.settings();
    const events = await this.#storage.transaction(async (tx) => {
      const found: BruteForceEvent[] = [];
      await countWindowed(tx, newEntry('ip', ip, { ip, keyId: null, userId: null }, now), settings.ip, now, found);
      await this.#pruneStale(tx, settings, now);
      return found;
    });
    this.#emit(events);
  }

  /** Active bans (and lockouts) of `scope`. */
  activeBans(scope: BruteForceScope): Promise<ActiveBan[]> {
    return this.#storage.bruteForce.activeBans(scope, this.#clock.now());
  }

  /** Lifts one ban; answers how many were lifted (0 or 1). */
  async unban(scope: BruteForceScope, subject: { ip?: string; keyId?: string; userId?: string }): Promise<number> {
    const now = this.#clock.now();
    const key = subjectOf(scope, subject);
    const lifted = await this.#storage.bruteForce.delete(scope, key, now);
    if (lifted) {
      this.#emit([{ action: 'unban', scope, ip: subject.ip ?? null, keyId: subject.keyId ?? null, userId: subject.userId ?? null, bannedUntil: null, cause: 'admin' }]);
    }
    return lifted ? 1 : 0;
  }

  /** Lifts every ban of `scope`; answers how many. */
  async unbanAll(scope: BruteForceScope): Promise<number> {
    const now = this.#clock.now();
    const lifted = await this.#storage.bruteForce.deleteActiveBans(scope, now);
    this.#emit(lifted.map((ban) => ({ action: 'unban', scope, ip: ban.ip, keyId: ban.keyId, userId: ban.userId, bannedUntil: null, cause: 'admin' })));
    return lifted.length;
  }

  async #pruneStale(tx: StorageTx, settings: SecuritySettings, now: number): Promise<void> {
    if (now - this.#lastPrune < STALE_PRUNE_INTERVAL_MS) return;
    this.#lastPrune = now;
    const longestMemory = Math.max(settings.ip.window_seconds, settings.key.window_seconds, settings.login.failure_reset_seconds) * 1000;
    await tx.bruteForce.pruneStale(now - longestMemory, now);
  }

  #emit(events: readonly BruteForceEvent[]): void {
    for (const event of events) {
      for (const listener of this.#listeners) listener.onBruteForceEvent(event);
    }
  }
}

/** Counts one failure on an IP or (IP, credential) counter, inside the counting transaction; bans at the rule's limit. */
async function countWindowed(tx: StorageTx, initial: BruteForceEntry, rule: RateLimitRule, now: number, events: BruteForceEvent[]): Promise<void> {
  const entry = await tx.bruteForce.lockCounter(initial);
  windowedFailure(entry, rule, now, events);
  await tx.bruteForce.save(entry);
}

/** One failure on a locked IP or (IP, credential) counter (unless it is banned already); bans at the rule's limit. */
function windowedFailure(entry: BruteForceEntry, rule: RateLimitRule, now: number, events: BruteForceEvent[]): void {
  if (entry.bannedUntil !== null && entry.bannedUntil > now) return;
  if (now - entry.windowStartedAt > rule.window_seconds * 1000) {
    entry.failures = 0;
    entry.windowStartedAt = now;
  }
  entry.failures += 1;
  entry.lastFailureAt = now;
  if (entry.failures >= rule.max_failures) {
    entry.failures = 0;
    entry.windowStartedAt = now;
    entry.lockouts += 1;
    entry.bannedUntil = now + rule.ban_seconds * 1000;
    events.push({ action: 'ban', scope: entry.scope, ip: entry.ip, keyId: entry.keyId, userId: null, bannedUntil: entry.bannedUntil, cause: 'failures' });
  }
}

/**
 * One failed login from `attempt.ip` on a locked account counter (unless it is locked already);
 * locks it out every `failures_before_lockout`.
 */
function accountFailure(entry: BruteForceEntry, attempt: { ip: string; userId: string }, rule: SecuritySettings['login'], now: number, events: BruteForceEvent[]): void {
  if (entry.bannedUntil !== null && entry.bannedUntil > now) return;
  // Keycloak: after `failure_reset_seconds` without a failure the count starts over.
  if (now - entry.lastFailureAt > rule.failure_reset_seconds * 1000) {
    entry.failures = 0;
    entry.lockouts = 0;
    entry.windowStartedAt = now;
  }
  entry.failures += 1;
  entry.lastFailureAt = now;
  if (entry.failures % rule.failures_before_lockout === 0) {
    entry.lockouts += 1;
    const waitSeconds = Math.min(rule.wait_increment_seconds * entry.lockouts, rule.max_wait_seconds);
    entry.bannedUntil = now + waitSeconds * 1000;
    events.push({ action: 'ban', scope: 'account', ip: attempt.ip, keyId: null, userId: attempt.userId, bannedUntil: entry.bannedUntil, cause: 'failures' });
  }
}

function newEntry(scope: BruteForceScope, subject: string, identity: Pick<BruteForceEntry, 'ip' | 'keyId' | 'userId'>, now: number): BruteForceEntry {
  return { scope, subject, ...identity, failures: 0, windowStartedAt: now, lastFailureAt: now, lockouts: 0, bannedUntil: null, inFlight: 0, inFlightSince: null };
}

/** The attempts reserved on a counter and not settled; a count whose last reservation is stale reads as 0. */
function inFlightOf(entry: BruteForceEntry, staleBefore: number): number {
  return entry.inFlightSince === null || entry.inFlightSince < staleBefore ? 0 : entry.inFlight;
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
