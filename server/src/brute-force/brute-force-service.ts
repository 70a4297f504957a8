/**
 * Brute-force protection. Counts failed logins per account and per client IP, and failed API keys
 * and access tokens per IP and per (IP, credential); bans and lockouts expire; account lockouts
 * grow with every repeated lockout (Keycloak's temporary lockout). All state is in the database,
 * so it is shared by every process on one `SVC_HOME` and survives restarts.
 *
 * The hot path (a request with a valid credential) only reads an in-process copy of the active IP
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
   * Brings the in-process copy of the active IP and key bans up to date: null when it already was
   * (decided synchronously, the hot path), else a promise that settles once it is. Never rejects: if
   * the database cannot be read, the bans known so far stay in force; the request then needs the
   * database for its own work anyway and fails closed there (R34), while a malformed credential
   * still gets its 401 without it (R22).
   */
  refreshBans(): Promise<void> | null {
    let epochs: Epochs | Promise<Epochs>;
    try {
      epochs = this.#storage.changes.current();
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
   * Counts a failed login from `ip`; `userId` is the account tried when it exists and was not locked
   * (attempts against a locked account count for the IP only, so they cannot extend the lockout).
   */
  async recordLoginFailure(ip: string, userId: string | null): Promise<void> {
    const now = this.#clock.now();
    const settings = await this.settings();
    const events = await this.#storage.transaction(async (tx) => {
      const found: BruteForceEvent[] = [];
      await countWindowed(tx, newEntry('ip', ip, { ip, keyId: null, userId: null }, now), settings.ip, now, found);
      if (userId !== null && (await tx.users.findById(userId)) !== null) await countAccount(tx, userId, ip, settings.login, now, found);
      await this.#pruneStale(tx, settings, now);
      return found;
    });
    this.#emit(events);
  }

  /** A successful login resets the account's failure count. */
  async recordLoginSuccess(userId: string): Promise<void> {
    await this.#storage.bruteForce.delete('account', userId, this.#clock.now());
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
  await tx.bruteForce.save(entry);
}

/** Counts one failed login against an account, inside the counting transaction; locks it out every `failures_before_lockout`. */
async function countAccount(tx: StorageTx, userId: string, ip: string, rule: SecuritySettings['login'], now: number, events: BruteForceEvent[]): Promise<void> {
  const entry = await tx.bruteForce.lockCounter(newEntry('account', userId, { ip, keyId: null, userId }, now));
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
    events.push({ action: 'ban', scope: 'account', ip, keyId: null, userId, bannedUntil: entry.bannedUntil, cause: 'failures' });
  }
  await tx.bruteForce.save(entry);
}

function newEntry(scope: BruteForceScope, subject: string, identity: Pick<BruteForceEntry, 'ip' | 'keyId' | 'userId'>, now: number): BruteForceEntry {
  return { scope, subject, ...identity, failures: 0, windowStartedAt: now, lastFailureAt: now, lockouts: 0, bannedUntil: null };
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
