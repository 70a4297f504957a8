/**
 * Usage totals and limiter counters on PostgreSQL (migration 030). Totals arrive in batches (one
 * `INSERT … ON CONFLICT DO UPDATE` per batch, rows added up); a counter update is one transaction
 * that locks the counter's row, so updates from several hosts serialize on it. The limiters call
 * {@link PostgresLimitCounterStore.update} once per leased block of capacity, not once per request.
 */
import type { CounterUpdate, LimitCounter, LimitCounterStore, LimitCounterUpdate, UsageQuery, UsageStore, UsageTotal } from '../port/usage.js';
import { mergeUsageTotals } from '../../limits/usage-meter.js';
import { storedPartyId, usageTotalOf, type UsageTotalRow } from '../rows.js';
import type { Executor } from './executor.js';

const NUMBERS = ['calls', 'errors', 'prompt_tokens', 'completion_tokens', 'estimated_calls', 'latency_ms_sum'] as const;

/** {@link LimitCounterStore} on PostgreSQL. */
export class PostgresLimitCounterStore implements LimitCounterStore {
  readonly #sql: Executor;

  constructor(sql: Executor) {
    this.#sql = sql;
  }

  update<Result>(subject: string, now: number, decide: (current: LimitCounter | null) => LimitCounterUpdate<Result>): Promise<Result> {
    return this.#sql.atomically(async (tx) => {
      const row = await tx.first<{ value: number; expires_at: number }>('SELECT value, expires_at FROM limit_counters WHERE subject = $1 FOR UPDATE', [subject]);
      const current = row === null || row.expires_at <= now ? null : { value: row.value, expiresAt: row.expires_at };
      const { next, result } = decide(current);
      if (next !== null) {
        // A missing row cannot be locked: two hosts may both insert it; the conflict makes the
        // second one re-run its decision on the first one's row (the transaction is retried whole).
        await tx.run(
          `INSERT INTO limit_counters (subject, value, expires_at) VALUES ($1, $2, $3)
           ON CONFLICT (subject) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
           WHERE ${row === null ? 'false' : 'true'}`,
          [subject, next.value, next.expiresAt],
        ).then((changed) => {
          if (changed === 0) throw new CounterRaceError();
        });
      }
      return result;
    }).catch((error: unknown) => {
      if (error instanceof CounterRaceError) return this.update(subject, now, decide);
      throw error;
    });
  }

  /**
   * Every counter in one transaction of at most four round trips (`BEGIN`, one `SELECT … FOR UPDATE`
   * of all the rows, one `UPDATE` of those that exist, `COMMIT`; one `INSERT` more for rows that do
   * not exist yet), not one transaction of four round trips per counter: the calls waiting for these
   * leases wait for one transaction, not eight in a row. The rows are locked in the order of their
   * subjects, so two hosts leasing overlapping sets cannot deadlock. A subject named twice is updated
   * one update after the other, as {@link update} would.
   */
  async updateMany<Result>(updates: readonly CounterUpdate<Result>[], now: number): Promise<Result[]> {
    const subjects = updates.map(({ subject }) => subject);
    if (updates.length <= 1 || new Set(subjects).size < subjects.length) {
      const results: Result[] = [];
      for (const { subject, decide } of updates) results.push(await this.update(subject, now, decide));
      return results;
    }
    return this.#sql
      .atomically(async (tx) => {
        const rows = await tx.rows<{ subject: string; value: number; expires_at: number }>(
          'SELECT subject, value, expires_at FROM limit_counters WHERE subject = ANY($1::text[]) ORDER BY subject FOR UPDATE',
          [subjects],
        );
        const found = new Map(rows.map((row) => [row.subject, row]));
        const changed: CounterRow[] = [];
        const created: CounterRow[] = [];
        const results = updates.map(({ subject, decide }) => {
          const row = found.get(subject);
          const { next, result } = decide(row === undefined || row.expires_at <= now ? null : { value: row.value, expiresAt: row.expires_at });
          if (next !== null) (row === undefined ? created : changed).push({ subject, value: next.value, expiresAt: next.expiresAt });
          return result;
        });
        if (changed.length > 0) {
          await tx.run(
            `UPDATE limit_counters AS counter SET value = next.value, expires_at = next.expires_at
             FROM unnest($1::text[], $2::double precision[], $3::bigint[]) AS next (subject, value, expires_at)
             WHERE counter.subject = next.subject`,
            columnsOf(changed),
          );
        }
        if (created.length > 0) {
          // A missing row cannot be locked: another host may have inserted it meanwhile; then the
          // whole transaction is retried on its row, as update does. Inserted in the order of their
          // subjects too: two hosts inserting overlapping new rows wait on each other's in one order,
          // never in a cycle (a deadlock PostgreSQL would break only after its deadlock_timeout).
          created.sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));
          const inserted = await tx.run(
            `INSERT INTO limit_counters (subject, value, expires_at)
             SELECT * FROM unnest($1::text[], $2::double precision[], $3::bigint[]) ON CONFLICT (subject) DO NOTHING`,
            columnsOf(created),
          );
          if (inserted !== created.length) throw new CounterRaceError();
        }
        return results;
      })
      .catch((error: unknown) => {
        if (error instanceof CounterRaceError) return this.updateMany(updates, now);
        throw error;
      });
  }

  async holdSlots(subject: string, holder: string, count: number, minimum: number, limit: number, now: number, expiresAt: number): Promise<number> {
    const prefix = `${holder}#`;
    return this.#sql.atomically(async (tx) => {
      // The lock on the subject's counter row serializes the counts and inserts of one subject across hosts.
      await tx.run(
        `INSERT INTO limit_counters (subject, value, expires_at) VALUES ($1, 0, $2)
         ON CONFLICT (subject) DO UPDATE SET expires_at = GREATEST(limit_counters.expires_at, excluded.expires_at)`,
        [`slots:${subject}`, expiresAt],
      );
      await tx.first('SELECT 1 FROM limit_counters WHERE subject = $1 FOR UPDATE', [`slots:${subject}`]);
      await tx.run('DELETE FROM limit_slots WHERE subject = $1 AND expires_at <= $2', [subject, now]);
      const counts = await tx.first<{ mine: number; total: number }>(
        'SELECT count(*) FILTER (WHERE substr(holder, 1, $2) = $3)::integer AS mine, count(*)::integer AS total FROM limit_slots WHERE subject = $1',
        [subject, prefix.length, prefix],
      );
      const mine = counts?.mine ?? 0;
      const granted = Math.min(count, limit - ((counts?.total ?? 0) - mine));
      if (granted < minimum) return mine;
      const kept = Math.max(0, granted);
      if (kept < mine) {
        const surplus = Array.from({ length: mine - kept }, (_, offset) => `${prefix}${kept + offset}`);
        await tx.run('DELETE FROM limit_slots WHERE subject = $1 AND holder = ANY($2::text[])', [subject, surplus]);
      }
      await tx.run('UPDATE limit_slots SET expires_at = $4 WHERE subject = $1 AND substr(holder, 1, $2) = $3', [subject, prefix.length, prefix, expiresAt]);
      if (kept > mine) {
        await tx.run('INSERT INTO limit_slots (subject, holder, expires_at) SELECT $1, $2::text || n, $3 FROM generate_series($4::integer, $5::integer - 1) AS n', [subject, prefix, expiresAt, mine, kept]);
      }
      return kept;
    });
  }

  async pruneExpired(now: number): Promise<number> {
    const counters = await this.#sql.run('DELETE FROM limit_counters WHERE expires_at <= $1', [now]);
    const slots = await this.#sql.run('DELETE FROM limit_slots WHERE expires_at <= $1', [now]);
    return counters + slots;
  }
}

/** Two hosts created the same counter at once: the loser decides again on the winner's row. */
class CounterRaceError extends Error {}

/** A counter's new state, as {@link PostgresLimitCounterStore.updateMany} writes it. */
interface CounterRow {
  subject: string;
  value: number;
  expiresAt: number;
}

/** `rows` as the three arrays an `unnest($1, $2, $3)` reads. */
function columnsOf(rows: readonly CounterRow[]): [string[], number[], number[]] {
  return [rows.map((row) => row.subject), rows.map((row) => row.value), rows.map((row) => row.expiresAt)];
}

/** {@link UsageStore} on PostgreSQL. */
export class PostgresUsageStore implements UsageStore {
  readonly #sql: Executor;
  readonly counters: PostgresLimitCounterStore;

  constructor(sql: Executor) {
    this.#sql = sql;
    this.counters = new PostgresLimitCounterStore(sql);
  }

  async add(deltas: readonly UsageTotal[]): Promise<void> {
    if (deltas.length === 0) return;
    // One statement per batch: the batch's rows as arrays, unnested. Rows of one primary key are
    // summed first (ON CONFLICT may not touch a row twice in one statement).
    const merged = mergeUsageTotals(deltas);
    await this.#sql.run(
      `INSERT INTO usage_totals (hour_start, key_id, user_id, model, ${NUMBERS.join(', ')})
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[])
       ON CONFLICT (hour_start, key_id, user_id, model) DO UPDATE SET
         ${NUMBERS.map((column) => `${column} = usage_totals.${column} + excluded.${column}`).join(', ')}`,
      [
        merged.map((delta) => delta.hourStart),
        merged.map((delta) => storedPartyId(delta.keyId)),
        merged.map((delta) => storedPartyId(delta.userId)),
        merged.map((delta) => delta.model),
        merged.map((delta) => delta.calls),
        merged.map((delta) => delta.errors),
        merged.map((delta) => delta.promptTokens),
        merged.map((delta) => delta.completionTokens),
        merged.map((delta) => delta.estimatedCalls),
        merged.map((delta) => delta.latencyMsSum),
      ],
    );
  }

  async totals(query: UsageQuery): Promise<UsageTotal[]> {
    const rows = await this.#sql.rows<UsageTotalRow>(
      `SELECT * FROM usage_totals WHERE hour_start >= $1 AND hour_start < $2
         AND ($3::text IS NULL OR user_id = $3) AND ($4::text IS NULL OR key_id = $4) AND ($5::text IS NULL OR model = $5)
       ORDER BY hour_start, key_id, user_id, model`,
      [
        query.start,
        query.end,
        query.userId === undefined ? null : storedPartyId(query.userId),
        query.keyId === undefined ? null : storedPartyId(query.keyId),
        query.model ?? null,
      ],
      { lookup: true },
    );
    return rows.map(usageTotalOf);
  }

  prune(before: number): Promise<number> {
    return this.#sql.run('DELETE FROM usage_totals WHERE hour_start < $1', [before]);
  }
}
