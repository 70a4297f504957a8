/**
 * Usage totals and limiter counters on SQLite (migration 030). The only module that writes SQL for
 * `usage_totals`, `limit_counters` and `limit_slots`. Every write is one statement or one immediate
 * transaction on the writer connection, so processes sharing the file update counters atomically.
 *
 * The connections are {@link UsageConnections}, structurally the adapter's `Connections`
 * of `statements.ts` (reader, writer, the writer gate); `SqliteStorage` passes its own.
 */
import type { Database, Statement } from 'better-sqlite3';
import { mergeUsageTotals } from '../../limits/usage-meter.js';
import { StorageUnavailableError } from '../port/errors.js';
import type { LimitCounter, LimitCounterStore, LimitCounterUpdate, UsageQuery, UsageStore, UsageTotal } from '../port/usage.js';

/** The reader and writer connections and the gate every write passes (the adapter's `Connections`). */
export interface UsageConnections {
  /** Reads: the reader connection at root level, the writer inside a transaction. */
  readonly read: Database;
  readonly write: Database;
  readonly gate: { write<T>(work: () => T): Promise<T> };
}

interface TotalRow {
  hour_start: number;
  key_id: string;
  user_id: string;
  model: string;
  calls: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  estimated_calls: number;
  latency_ms_sum: number;
}

const stored = (id: string | null): string => id ?? '';
const loaded = (id: string): string | null => (id === '' ? null : id);

const toTotal = (row: TotalRow): UsageTotal => ({
  hourStart: row.hour_start,
  keyId: loaded(row.key_id),
  userId: loaded(row.user_id),
  model: row.model,
  calls: row.calls,
  errors: row.errors,
  promptTokens: row.prompt_tokens,
  completionTokens: row.completion_tokens,
  estimatedCalls: row.estimated_calls,
  latencyMsSum: row.latency_ms_sum,
});

const ADD = `INSERT INTO usage_totals (hour_start, key_id, user_id, model, calls, errors, prompt_tokens, completion_tokens, estimated_calls, latency_ms_sum)
  VALUES (@hourStart, @keyId, @userId, @model, @calls, @errors, @promptTokens, @completionTokens, @estimatedCalls, @latencyMsSum)
  ON CONFLICT (hour_start, key_id, user_id, model) DO UPDATE SET calls = calls + excluded.calls, errors = errors + excluded.errors,
    prompt_tokens = prompt_tokens + excluded.prompt_tokens, completion_tokens = completion_tokens + excluded.completion_tokens,
    estimated_calls = estimated_calls + excluded.estimated_calls, latency_ms_sum = latency_ms_sum + excluded.latency_ms_sum`;
const TOTALS = `SELECT * FROM usage_totals WHERE hour_start >= ? AND hour_start < ?
  AND (? IS NULL OR user_id = ?) AND (? IS NULL OR key_id = ?) AND (? IS NULL OR model = ?)
  ORDER BY hour_start, key_id, user_id, model`;

const prepared = new WeakMap<Database, Map<string, Statement>>();

/** The statement for `sql` on `db`, prepared once. */
function statement(db: Database, sql: string): Statement {
  let statements = prepared.get(db);
  if (statements === undefined) {
    statements = new Map();
    prepared.set(db, statements);
  }
  let found = statements.get(sql);
  if (found === undefined) {
    found = db.prepare(sql);
    statements.set(sql, found);
  }
  return found;
}

const unavailable = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_FULL', 'SQLITE_PROTOCOL'];

/** `error`, or a {@link StorageUnavailableError} when it means "cannot use the database now". */
function toStorageError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && unavailable.some((primary) => code === primary || code.startsWith(`${primary}_`))) {
    return new StorageUnavailableError(`the database cannot be used now (${code})`, { cause: error });
  }
  return error;
}

/** Runs synchronous `work`, throwing errors mapped by {@link toStorageError}. */
function attemptSync<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw toStorageError(error);
  }
}

/** Runs synchronous `work` as a promise, errors mapped by {@link toStorageError}. */
function attempt<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(toStorageError(error));
  }
}

/**
 * A gate that runs each write at once, for a single connection whose writes are already serial
 * (the adapter's `openGate`; the pre-port `Storage`'s one connection).
 */
export const immediateGate: UsageConnections['gate'] = { write: (work) => attempt(work) };

/** {@link LimitCounterStore} on SQLite. */
export class SqliteLimitCounterStore implements LimitCounterStore {
  readonly #c: UsageConnections;

  constructor(connections: UsageConnections) {
    this.#c = connections;
  }

  update<Result>(subject: string, now: number, decide: (current: LimitCounter | null) => LimitCounterUpdate<Result>): Promise<Result> {
    const db = this.#c.write;
    return this.#c.gate.write(() =>
      attemptSync(() =>
        db
          .transaction(() => {
            const row = statement(db, 'SELECT value, expires_at FROM limit_counters WHERE subject = ?').get(subject) as { value: number; expires_at: number } | undefined;
            const current = row === undefined || row.expires_at <= now ? null : { value: row.value, expiresAt: row.expires_at };
            const { next, result } = decide(current);
            if (next !== null) {
              statement(
                db,
                'INSERT INTO limit_counters (subject, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (subject) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
              ).run(subject, next.value, next.expiresAt);
            }
            return result;
          })
          .immediate(),
      ),
    );
  }

  acquireSlot(subject: string, holder: string, limit: number, now: number, expiresAt: number): Promise<boolean> {
    const db = this.#c.write;
    return this.#c.gate.write(() =>
      attemptSync(() =>
        db
          .transaction(() => {
            statement(db, 'DELETE FROM limit_slots WHERE subject = ? AND expires_at <= ?').run(subject, now);
            const held = statement(db, 'SELECT count(*) AS count FROM limit_slots WHERE subject = ? AND holder <> ?').get(subject, holder) as { count: number };
            if (held.count >= limit) return false;
            statement(
              db,
              'INSERT INTO limit_slots (subject, holder, expires_at) VALUES (?, ?, ?) ON CONFLICT (subject, holder) DO UPDATE SET expires_at = excluded.expires_at',
            ).run(subject, holder, expiresAt);
            return true;
          })
          .immediate(),
      ),
    );
  }

  releaseSlot(subject: string, holder: string): Promise<void> {
    return this.#c.gate.write(() => {
      attemptSync(() => statement(this.#c.write, 'DELETE FROM limit_slots WHERE subject = ? AND holder = ?').run(subject, holder));
    });
  }

  pruneExpired(now: number): Promise<number> {
    const db = this.#c.write;
    return this.#c.gate.write(() =>
      attemptSync(
        () =>
          statement(db, 'DELETE FROM limit_counters WHERE expires_at <= ?').run(now).changes + statement(db, 'DELETE FROM limit_slots WHERE expires_at <= ?').run(now).changes,
      ),
    );
  }
}

/** {@link UsageStore} on SQLite. */
export class SqliteUsageStore implements UsageStore {
  readonly #c: UsageConnections;
  readonly counters: SqliteLimitCounterStore;

  constructor(connections: UsageConnections) {
    this.#c = connections;
    this.counters = new SqliteLimitCounterStore(connections);
  }

  add(deltas: readonly UsageTotal[]): Promise<void> {
    if (deltas.length === 0) return Promise.resolve();
    const db = this.#c.write;
    const rows = mergeUsageTotals(deltas).map((delta) => ({ ...delta, keyId: stored(delta.keyId), userId: stored(delta.userId) }));
    return this.#c.gate.write(() =>
      attemptSync(() =>
        db.transaction(() => {
          const add = statement(db, ADD);
          for (const row of rows) add.run(row);
        })(),
      ),
    );
  }

  totals(query: UsageQuery): Promise<UsageTotal[]> {
    return attempt(() => {
      const user = query.userId === undefined ? null : stored(query.userId);
      const key = query.keyId === undefined ? null : stored(query.keyId);
      const model = query.model ?? null;
      const rows = statement(this.#c.read, TOTALS).all(query.start, query.end, user, user, key, key, model, model) as TotalRow[];
      return rows.map(toTotal);
    });
  }

  prune(before: number): Promise<number> {
    return this.#c.gate.write(() => attemptSync(() => statement(this.#c.write, 'DELETE FROM usage_totals WHERE hour_start < ?').run(before).changes));
  }
}
