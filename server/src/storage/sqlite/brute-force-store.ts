/**
 * Failure counters, bans and lockouts on SQLite. The only module that writes SQL for
 * `brute_force_entries`. A ban that starts, ends or changes moves the `bans` epoch (triggers of migration 021).
 */
import type { ActiveBan, BruteForceEntry, BruteForceScope, BruteForceStore } from '../port/brute-force.js';
import { activeBanOf, bruteForceEntryOf, type BanRow, type BruteForceRow } from '../rows.js';
import { attempt } from './errors.js';
import { statement, type Connections } from './statements.js';

const FIND = 'SELECT * FROM brute_force_entries WHERE scope = ? AND subject = ?';
const ACTIVE = `SELECT e.*, u.username FROM brute_force_entries e LEFT JOIN users u ON u.id = e.user_id
  WHERE e.banned_until > ? AND (? IS NULL OR e.scope = ?) ORDER BY e.banned_until DESC`;

/** Reads and writes brute-force state. */
export class SqliteBruteForceStore implements BruteForceStore {
  readonly #c: Connections;

  constructor(connections: Connections) {
    this.#c = connections;
  }

  find(scope: BruteForceScope, subject: string): Promise<BruteForceEntry | null> {
    return attempt(() => this.#find(scope, subject, 'read'));
  }

  /** SQLite: the transaction already holds the database, so the row needs no lock of its own. */
  lockCounter(initial: BruteForceEntry): Promise<BruteForceEntry> {
    return attempt(() => this.#find(initial.scope, initial.subject, 'write') ?? { ...initial });
  }

  save(entry: BruteForceEntry): Promise<void> {
    return this.#c.gate.write(() => {
      statement(
        this.#c.write,
        `INSERT INTO brute_force_entries (scope, subject, ip, key_id, user_id, failures, window_started_at, last_failure_at, lockouts, banned_until, in_flight, in_flight_since)
         VALUES (@scope, @subject, @ip, @keyId, @userId, @failures, @windowStartedAt, @lastFailureAt, @lockouts, @bannedUntil, @inFlight, @inFlightSince)
         ON CONFLICT (scope, subject) DO UPDATE SET failures = excluded.failures, window_started_at = excluded.window_started_at,
           last_failure_at = excluded.last_failure_at, lockouts = excluded.lockouts, banned_until = excluded.banned_until,
           in_flight = excluded.in_flight, in_flight_since = excluded.in_flight_since`,
      ).run(entry);
    });
  }

  delete(scope: BruteForceScope, subject: string, now: number): Promise<boolean> {
    return this.#c.gate.write(() => {
      const entry = this.#find(scope, subject, 'write');
      if (entry === null) return false;
      statement(this.#c.write, 'DELETE FROM brute_force_entries WHERE scope = ? AND subject = ?').run(scope, subject);
      return entry.bannedUntil !== null && entry.bannedUntil > now;
    });
  }

  deleteActiveBans(scope: BruteForceScope, now: number): Promise<ActiveBan[]> {
    const db = this.#c.write;
    return this.#c.gate.write(() =>
      db.transaction(() => {
        const banned = activeBans(db, scope, now);
        statement(db, 'DELETE FROM brute_force_entries WHERE scope = ? AND banned_until > ?').run(scope, now);
        return banned;
      })(),
    );
  }

  deleteKeyEntriesOfIp(ip: string, now: number): Promise<ActiveBan[]> {
    const db = this.#c.write;
    return this.#c.gate.write(() =>
      db.transaction(() => {
        const banned = activeBans(db, 'key', now).filter((ban) => ban.ip === ip);
        statement(db, "DELETE FROM brute_force_entries WHERE scope = 'key' AND ip = ?").run(ip);
        return banned;
      })(),
    );
  }

  activeBans(scope: BruteForceScope | null, now: number): Promise<ActiveBan[]> {
    return attempt(() => activeBans(this.#c.read, scope, now));
  }

  pruneStale(before: number, now: number): Promise<void> {
    return this.#c.gate.write(() => {
      statement(this.#c.write, 'DELETE FROM brute_force_entries WHERE last_failure_at < ? AND (banned_until IS NULL OR banned_until <= ?)').run(before, now);
    });
  }

  #find(scope: BruteForceScope, subject: string, connection: 'read' | 'write'): BruteForceEntry | null {
    const row = statement<[string, string], BruteForceRow>(this.#c[connection], FIND).get(scope, subject);
    return row === undefined ? null : bruteForceEntryOf(row);
  }
}

function activeBans(db: Connections['read'], scope: BruteForceScope | null, now: number): ActiveBan[] {
  return statement<[number, string | null, string | null], BanRow>(db, ACTIVE).all(now, scope, scope).map(activeBanOf);
}
