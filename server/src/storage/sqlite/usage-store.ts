/**
 * Usage totals and limiter counters on SQLite (migration 030). The only module that writes SQL for
 * `usage_totals`, `limit_counters` and `limit_slots`. Every write is one statement or one immediate
 * transaction on the writer connection, so processes sharing the file update counters atomically.
 */
import { mergeUsageTotals } from '../../limits/usage-meter.js';
import type { CounterUpdate, LimitCounter, LimitCounterStore, LimitCounterUpdate, UsageQuery, UsageStore, UsageTotal } from '../port/usage.js';
import { storedPartyId, usageTotalOf, type UsageTotalRow } from '../rows.js';
import { attempt } from './errors.js';
import { statement, type Connections } from './statements.js';

const ADD = `INSERT INTO usage_totals (hour_start, key_id, user_id, model, calls, errors, prompt_tokens, completion_tokens, estimated_calls, latency_ms_sum)
  VALUES (@hourStart, @keyId, @userId, @model, @calls, @errors, @promptTokens, @completionTokens, @estimatedCalls, @latencyMsSum)
  ON CONFLICT (hour_start, key_id, user_id, model) DO UPDATE SET calls = calls + excluded.calls, errors = errors + excluded.errors,
    prompt_tokens = prompt_tokens + excluded.prompt_tokens, completion_tokens = completion_tokens + excluded.completion_tokens,
    estimated_calls = estimated_calls + excluded.estimated_calls, latency_ms_sum = latency_ms_sum + excluded.latency_ms_sum`;
const TOTALS = `SELECT * FROM usage_totals WHERE hour_start >= ? AND hour_start < ?
  AND (? IS NULL OR user_id = ?) AND (? IS NULL OR key_id = ?) AND (? IS NULL OR model = ?)
  ORDER BY hour_start, key_id, user_id, model`;

/** {@link LimitCounterStore} on SQLite. */
export class SqliteLimitCounterStore implements LimitCounterStore {
  readonly #c: Connections;

  constructor(connections: Connections) {
    this.#c = connections;
  }

  update<Result>(subject: string, now: number, decide: (current: LimitCounter | null) => LimitCounterUpdate<Result>): Promise<Result> {
    return this.updateMany([{ subject, decide }], now).then((results) => results[0] as Result);
  }

  /** One immediate transaction for every counter: one commit (one sync of the file) however many. */
  updateMany<Result>(updates: readonly CounterUpdate<Result>[], now: number): Promise<Result[]> {
    const db = this.#c.write;
    return this.#c.gate.write(() =>
      db
        .transaction(() =>
          updates.map(({ subject, decide }) => {
            const row = statement<[string], { value: number; expires_at: number }>(db, 'SELECT value, expires_at FROM limit_counters WHERE subject = ?').get(subject);
            const current = row === undefined || row.expires_at <= now ? null : { value: row.value, expiresAt: row.expires_at };
            const { next, result } = decide(current);
            if (next !== null) {
              statement(
                db,
                'INSERT INTO limit_counters (subject, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (subject) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
              ).run(subject, next.value, next.expiresAt);
            }
            return result;
          }),
        )
        .immediate(),
    );
  }

  holdSlots(subject: string, holder: string, count: number, minimum: number, limit: number, now: number, expiresAt: number): Promise<number> {
    const db = this.#c.write;
    const prefix = `${holder}#`;
    return this.#c.gate.write(() =>
      db
        .transaction(() => {
          statement(db, 'DELETE FROM limit_slots WHERE subject = ? AND expires_at <= ?').run(subject, now);
          const counts = statement<[number, string, string], { mine: number | null; total: number }>(
            db,
            'SELECT sum(substr(holder, 1, ?) = ?) AS mine, count(*) AS total FROM limit_slots WHERE subject = ?',
          ).get(prefix.length, prefix, subject);
          const mine = counts?.mine ?? 0;
          const granted = Math.min(count, limit - ((counts?.total ?? 0) - mine));
          if (granted < minimum) return mine;
          const kept = Math.max(0, granted);
          const remove = statement(db, 'DELETE FROM limit_slots WHERE subject = ? AND holder = ?');
          for (let index = kept; index < mine; index += 1) remove.run(subject, `${prefix}${index}`);
          statement(db, 'UPDATE limit_slots SET expires_at = ? WHERE subject = ? AND substr(holder, 1, ?) = ?').run(expiresAt, subject, prefix.length, prefix);
          const insert = statement(db, 'INSERT INTO limit_slots (subject, holder, expires_at) VALUES (?, ?, ?)');
          for (let index = mine; index < kept; index += 1) insert.run(subject, `${prefix}${index}`, expiresAt);
          return kept;
        })
        .immediate(),
    );
  }

  pruneExpired(now: number): Promise<number> {
    const db = this.#c.write;
    return this.#c.gate.write(
      () => statement(db, 'DELETE FROM limit_counters WHERE expires_at <= ?').run(now).changes + statement(db, 'DELETE FROM limit_slots WHERE expires_at <= ?').run(now).changes,
    );
  }
}

/** {@link UsageStore} on SQLite. */
export class SqliteUsageStore implements UsageStore {
  readonly #c: Connections;
  readonly counters: SqliteLimitCounterStore;

  constructor(connections: Connections) {
    this.#c = connections;
    this.counters = new SqliteLimitCounterStore(connections);
  }

  add(deltas: readonly UsageTotal[]): Promise<void> {
    if (deltas.length === 0) return Promise.resolve();
    const db = this.#c.write;
    const rows = mergeUsageTotals(deltas).map((delta) => ({ ...delta, keyId: storedPartyId(delta.keyId), userId: storedPartyId(delta.userId) }));
    return this.#c.gate.write(() =>
      db.transaction(() => {
        const add = statement(db, ADD);
        for (const row of rows) add.run(row);
      })(),
    );
  }

  totals(query: UsageQuery): Promise<UsageTotal[]> {
    return attempt(() => {
      const user = query.userId === undefined ? null : storedPartyId(query.userId);
      const key = query.keyId === undefined ? null : storedPartyId(query.keyId);
      const model = query.model ?? null;
      const rows = statement<unknown[], UsageTotalRow>(this.#c.read, TOTALS).all(query.start, query.end, user, user, key, key, model, model);
      return rows.map(usageTotalOf);
    });
  }

  prune(before: number): Promise<number> {
    return this.#c.gate.write(() => statement(this.#c.write, 'DELETE FROM usage_totals WHERE hour_start < ?').run(before).changes);
  }
}
