/**
 * Runs the adapter's SQL on the pool (one statement, autocommit) or on one transaction's connection,
 * mapping failures onto the port's errors. Every store is given an executor, so the same store code
 * serves root-level calls and calls inside {@link Storage.transaction}.
 */
import type pg from 'pg';
import type { RowLock } from '../port/index.js';
import { toStorageError } from './errors.js';
import { inTransaction } from './transaction.js';

/** Options of one statement. */
export interface StatementOptions {
  /** Prepare the statement once per connection under this name (hot queries only). */
  name?: string;
  /**
   * The statement only looks rows up by its parameters: when one of them is text holding NUL
   * (which PostgreSQL text can never hold, so no stored value can equal it) it matches nothing,
   * answered without a round trip instead of PostgreSQL's encoding error.
   */
  lookup?: boolean;
}


const holdsNul = (values: readonly unknown[]): boolean =>
  values.some((value) => (typeof value === 'string' && value.includes('\u0000')) || (Array.isArray(value) && holdsNul(value)));

/** SQL on the pool or on one transaction's connection. */
export class Executor {
  readonly #target: pg.Pool | pg.PoolClient;
  readonly #pool: pg.Pool;
  readonly #prepare: boolean;
  /** True on a transaction's connection: row locks take effect, and {@link atomically} needs no new transaction. */
  readonly inTransaction: boolean;

  constructor(target: pg.Pool | pg.PoolClient, pool: pg.Pool, options: { inTransaction: boolean; prepare: boolean }) {
    this.#target = target;
    this.#pool = pool;
    this.#prepare = options.prepare;
    this.inTransaction = options.inTransaction;
  }

  /** Rows of one statement. */
  async rows<Row extends object>(text: string, values: readonly unknown[] = [], options: StatementOptions = {}): Promise<Row[]> {
    return (await this.#query<Row>(text, values, options)).rows;
  }

  /** The first row of one statement, or null. */
  async first<Row extends object>(text: string, values: readonly unknown[] = [], options: StatementOptions = {}): Promise<Row | null> {
    return (await this.#query<Row>(text, values, options)).rows[0] ?? null;
  }

  /** How many rows one statement changed. */
  async run(text: string, values: readonly unknown[] = [], options: StatementOptions = {}): Promise<number> {
    return (await this.#query<object>(text, values, options)).rowCount ?? 0;
  }

  /** `work` in one transaction: this one when there is one, a new one otherwise. */
  atomically<T>(work: (executor: Executor) => Promise<T>): Promise<T> {
    if (this.inTransaction) return work(this);
    return inTransaction(this.#pool, (client) => work(new Executor(client, this.#pool, { inTransaction: true, prepare: this.#prepare })), {});
  }

  /**
   * `work`, whose failure must not abort the surrounding transaction (a savepoint around it inside
   * one; outside one, a statement that fails changes nothing anyway).
   */
  async isolated<T>(work: () => Promise<T>): Promise<T> {
    if (!this.inTransaction) return work();
    await this.run('SAVEPOINT svc_isolated');
    try {
      const result = await work();
      await this.run('RELEASE SAVEPOINT svc_isolated');
      return result;
    } catch (error) {
      await this.run('ROLLBACK TO SAVEPOINT svc_isolated');
      throw error;
    }
  }

  /** ` FOR UPDATE` / ` FOR SHARE` (optionally `OF table`) inside a transaction; nothing outside one. */
  lockClause(options: RowLock | undefined, of?: string): string {
    if (!this.inTransaction || options?.lock === undefined) return '';
    return ` FOR ${options.lock === 'update' ? 'UPDATE' : 'SHARE'}${of === undefined ? '' : ` OF ${of}`}`;
  }

  async #query<Row extends object>(text: string, values: readonly unknown[], options: StatementOptions): Promise<{ rows: Row[]; rowCount: number | null }> {
    if (options.lookup === true && holdsNul(values)) return { rows: [], rowCount: 0 };
    const config: pg.QueryConfig = { text, values: values as unknown[] };
    if (this.#prepare && options.name !== undefined) config.name = options.name;
    try {
      return await this.#target.query<Row>(config);
    } catch (error) {
      throw toStorageError(error);
    }
  }
}
