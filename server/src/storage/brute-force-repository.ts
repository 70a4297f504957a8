/**
 * Security settings, failure counters, bans and lockouts. The only module that writes SQL for
 * `security_settings` and `brute_force_entries`. Writes that create or lift a ban mark the change
 * tracker, so this process's ban cache reloads on its next request (other processes see
 * `data_version` change).
 */
import type { ChangeTracker } from './change-tracker.js';
import type { Database } from './database.js';

/** What is counted: failures from a client IP, from an (IP, credential) pair, or against an account. */
export type BruteForceScope = 'ip' | 'key' | 'account';

/** One counter row. */
export interface BruteForceEntry {
  scope: BruteForceScope;
  subject: string;
  ip: string | null;
  keyId: string | null;
  userId: string | null;
  failures: number;
  windowStartedAt: number;
  lastFailureAt: number;
  lockouts: number;
  bannedUntil: number | null;
}

/** An active ban or lockout, with the account's name for lockouts. */
export interface ActiveBan {
  scope: BruteForceScope;
  ip: string | null;
  keyId: string | null;
  userId: string | null;
  username: string | null;
  failures: number;
  lockouts: number;
  bannedUntil: number;
}

interface EntryRow {
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
}

const toEntry = (row: EntryRow): BruteForceEntry => ({
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
});

/** Reads and writes brute-force state. */
export class BruteForceRepository {
  readonly #db: Database;
  readonly #tracker: ChangeTracker;

  constructor(db: Database, tracker: ChangeTracker) {
    this.#db = db;
    this.#tracker = tracker;
  }

  /** The stored settings JSON, or null when never saved (the defaults apply). */
  settingsJson(): string | null {
    const row = this.#db.prepare<[], { settings: string }>('SELECT settings FROM security_settings WHERE id = 1').get();
    return row?.settings ?? null;
  }

  saveSettingsJson(json: string, now: number): void {
    this.#db
      .prepare('INSERT INTO security_settings (id, settings, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at')
      .run(json, now);
    this.#tracker.markChanged();
  }

  find(scope: BruteForceScope, subject: string): BruteForceEntry | null {
    const row = this.#db.prepare<[string, string], EntryRow>('SELECT * FROM brute_force_entries WHERE scope = ? AND subject = ?').get(scope, subject);
    return row === undefined ? null : toEntry(row);
  }

  /** Writes `entry` (insert or replace); marks the tracker when the ban state changed. */
  save(entry: BruteForceEntry, banChanged: boolean): void {
    this.#db
      .prepare(
        `INSERT INTO brute_force_entries (scope, subject, ip, key_id, user_id, failures, window_started_at, last_failure_at, lockouts, banned_until)
         VALUES (@scope, @subject, @ip, @keyId, @userId, @failures, @windowStartedAt, @lastFailureAt, @lockouts, @bannedUntil)
         ON CONFLICT (scope, subject) DO UPDATE SET failures = excluded.failures, window_started_at = excluded.window_started_at,
           last_failure_at = excluded.last_failure_at, lockouts = excluded.lockouts, banned_until = excluded.banned_until`,
      )
      .run(entry);
    if (banChanged) this.#tracker.markChanged();
  }

  /** Deletes one counter (and its ban); answers whether it was banned at `now`. */
  delete(scope: BruteForceScope, subject: string, now: number): boolean {
    const entry = this.find(scope, subject);
    if (entry === null) return false;
    this.#db.prepare('DELETE FROM brute_force_entries WHERE scope = ? AND subject = ?').run(scope, subject);
    const wasBanned = entry.bannedUntil !== null && entry.bannedUntil > now;
    if (wasBanned) this.#tracker.markChanged();
    return wasBanned;
  }

  /** Deletes every active ban of `scope` with its counter; answers the entries deleted. */
  deleteActiveBans(scope: BruteForceScope, now: number): ActiveBan[] {
    const banned = this.activeBans(scope, now);
    this.#db.prepare('DELETE FROM brute_force_entries WHERE scope = ? AND banned_until > ?').run(scope, now);
    if (banned.length > 0) this.#tracker.markChanged();
    return banned;
  }

  /**
   * Deletes the (IP, credential) counters and bans of one client IP; answers the active bans
   * deleted. Marks the tracker when one was active.
   */
  deleteKeyEntriesOfIp(ip: string, now: number): ActiveBan[] {
    const banned = this.activeBans('key', now).filter((ban) => ban.ip === ip);
    this.#db.prepare("DELETE FROM brute_force_entries WHERE scope = 'key' AND ip = ?").run(ip);
    if (banned.length > 0) this.#tracker.markChanged();
    return banned;
  }

  /** Active bans of `scope` (every scope when omitted), soonest to expire last. */
  activeBans(scope: BruteForceScope | null, now: number): ActiveBan[] {
    const rows = this.#db
      .prepare<[number, string | null, string | null], EntryRow & { username: string | null }>(
        `SELECT e.*, u.username FROM brute_force_entries e LEFT JOIN users u ON u.id = e.user_id
         WHERE e.banned_until > ? AND (? IS NULL OR e.scope = ?) ORDER BY e.banned_until DESC`,
      )
      .all(now, scope, scope);
    return rows.map((row) => ({
      scope: row.scope,
      ip: row.ip,
      keyId: row.key_id,
      userId: row.user_id,
      username: row.username,
      failures: row.failures,
      lockouts: row.lockouts,
      bannedUntil: row.banned_until as number,
    }));
  }

  /**
   * The attempts of (`scope`, `subject`) reserved and not yet settled; a count whose last
   * reservation is older than `staleBefore` was left by a crashed process and reads as 0.
   */
  inFlight(scope: BruteForceScope, subject: string, staleBefore: number): number {
    const row = this.#db
      .prepare<[string, string], { in_flight: number; in_flight_since: number | null }>('SELECT in_flight, in_flight_since FROM brute_force_entries WHERE scope = ? AND subject = ?')
      .get(scope, subject);
    if (row === undefined || row.in_flight_since === null || row.in_flight_since < staleBefore) return 0;
    return row.in_flight;
  }

  /**
   * Sets the attempts in flight of (`scope`, `subject`), creating its counter row (with no failure)
   * when there is none. `reservedAt` is the time of the newest reservation (kept when null).
   */
  setInFlight(entry: Pick<BruteForceEntry, 'scope' | 'subject' | 'ip' | 'keyId' | 'userId'>, inFlight: number, reservedAt: number | null, now: number): void {
    this.#db
      .prepare(
        `INSERT INTO brute_force_entries (scope, subject, ip, key_id, user_id, failures, window_started_at, last_failure_at, lockouts, banned_until, in_flight, in_flight_since)
         VALUES (@scope, @subject, @ip, @keyId, @userId, 0, @now, @now, 0, NULL, @inFlight, @reservedAt)
         ON CONFLICT (scope, subject) DO UPDATE SET in_flight = excluded.in_flight,
           in_flight_since = COALESCE(excluded.in_flight_since, brute_force_entries.in_flight_since)`,
      )
      .run({ ...entry, inFlight, reservedAt, now });
  }

  /** Forgets counters whose last failure is older than `before` and that hold no active ban. */
  pruneStale(before: number, now: number): void {
    this.#db.prepare('DELETE FROM brute_force_entries WHERE last_failure_at < ? AND (banned_until IS NULL OR banned_until <= ?)').run(before, now);
  }
}
