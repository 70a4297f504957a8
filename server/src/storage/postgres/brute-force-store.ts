/**
 * Failure counters, bans and lockouts on PostgreSQL. Counting happens in the service on a row locked
 * by {@link PostgresBruteForceStore.lockCounter}, so failures counted on several hosts at once add up.
 * A change of a row's ban bumps the `bans` epoch (trigger of migration 004).
 */
import type { ActiveBan, BruteForceEntry, BruteForceScope, BruteForceStore } from '../port/index.js';
import { activeBanOf, bruteForceEntryOf, type BanRow, type BruteForceRow } from '../rows.js';
import type { Executor } from './executor.js';

const COLUMNS = 'scope, subject, ip, key_id, user_id, failures, window_started_at, last_failure_at, lockouts, banned_until, in_flight, in_flight_since';
const BAN_COLUMNS = 'scope, subject, ip, key_id, user_id, failures, window_started_at, last_failure_at, lockouts, banned_until';

const entryValues = (entry: BruteForceEntry): unknown[] => [
  entry.scope,
  entry.subject,
  entry.ip,
  entry.keyId,
  entry.userId,
  entry.failures,
  entry.windowStartedAt,
  entry.lastFailureAt,
  entry.lockouts,
  entry.bannedUntil,
  entry.inFlight,
  entry.inFlightSince,
];

/** {@link BruteForceStore} on PostgreSQL. */
export class PostgresBruteForceStore implements BruteForceStore {
  readonly #sql: Executor;

  constructor(sql: Executor) {
    this.#sql = sql;
  }

  async find(scope: BruteForceScope, subject: string): Promise<BruteForceEntry | null> {
    const row = await this.#sql.first<BruteForceRow>(`SELECT ${COLUMNS} FROM brute_force_entries WHERE scope = $1 AND subject = $2`, [scope, subject], { lookup: true });
    return row === null ? null : bruteForceEntryOf(row);
  }

  /** Creates the counter from `initial` if missing, then locks it until commit (in a transaction). */
  async lockCounter(initial: BruteForceEntry): Promise<BruteForceEntry> {
    await this.#sql.run(`INSERT INTO brute_force_entries (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (scope, subject) DO NOTHING`, entryValues(initial));
    const row = await this.#sql.first<BruteForceRow>(
      `SELECT ${COLUMNS} FROM brute_force_entries WHERE scope = $1 AND subject = $2${this.#sql.lockClause({ lock: 'update' })}`,
      [initial.scope, initial.subject],
    );
    // Deleted between the two statements (an unban outside a transaction): count from the start.
    return row === null ? initial : bruteForceEntryOf(row);
  }

  async save(entry: BruteForceEntry): Promise<void> {
    await this.#sql.run(
      `INSERT INTO brute_force_entries (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (scope, subject) DO UPDATE SET failures = excluded.failures, window_started_at = excluded.window_started_at,
         last_failure_at = excluded.last_failure_at, lockouts = excluded.lockouts, banned_until = excluded.banned_until,
         in_flight = excluded.in_flight, in_flight_since = excluded.in_flight_since`,
      entryValues(entry),
    );
  }

  async delete(scope: BruteForceScope, subject: string, now: number): Promise<boolean> {
    const row = await this.#sql.first<{ banned_until: number | null }>(
      'DELETE FROM brute_force_entries WHERE scope = $1 AND subject = $2 RETURNING banned_until',
      [scope, subject],
      { lookup: true },
    );
    return row?.banned_until != null && row.banned_until > now;
  }

  async deleteActiveBans(scope: BruteForceScope, now: number): Promise<ActiveBan[]> {
    const rows = await this.#sql.rows<BanRow>(
      `WITH deleted AS (DELETE FROM brute_force_entries WHERE scope = $1 AND banned_until > $2 RETURNING ${BAN_COLUMNS})
       SELECT d.*, u.username FROM deleted d LEFT JOIN users u ON u.id = d.user_id ORDER BY d.banned_until DESC`,
      [scope, now],
    );
    return rows.map(activeBanOf);
  }

  /** Deletes every (IP, credential) counter of `ip`; answers those that held an active ban. */
  async deleteKeyEntriesOfIp(ip: string, now: number): Promise<ActiveBan[]> {
    const rows = await this.#sql.rows<BanRow>(
      `WITH deleted AS (DELETE FROM brute_force_entries WHERE scope = 'key' AND ip = $1 RETURNING ${BAN_COLUMNS})
       SELECT d.*, u.username FROM deleted d LEFT JOIN users u ON u.id = d.user_id WHERE d.banned_until > $2 ORDER BY d.banned_until DESC`,
      [ip, now],
      { lookup: true },
    );
    return rows.map(activeBanOf);
  }

  async activeBans(scope: BruteForceScope | null, now: number): Promise<ActiveBan[]> {
    const rows = await this.#sql.rows<BanRow>(
      `SELECT e.*, u.username FROM brute_force_entries e LEFT JOIN users u ON u.id = e.user_id
       WHERE e.banned_until > $1 AND ($2::text IS NULL OR e.scope = $2) ORDER BY e.banned_until DESC`,
      [now, scope],
      { name: 'svc-active-bans' },
    );
    return rows.map(activeBanOf);
  }

  async pruneStale(before: number, now: number): Promise<void> {
    await this.#sql.run('DELETE FROM brute_force_entries WHERE last_failure_at < $1 AND (banned_until IS NULL OR banned_until <= $2)', [before, now]);
  }
}
