/**
 * Transactions on PostgreSQL. The rules every caller relies on:
 *
 * 1. READ COMMITTED, plus explicit locks: the named advisory locks first, always in the order
 *    `setup` < `admins` < `settings` (so two transactions never wait on each other in a cycle),
 *    then row locks (`FOR UPDATE` / `FOR SHARE`) as the work reads.
 * 2. The whole work runs again on a serialization failure (40001) or a deadlock (40P01), at most
 *    {@link MAX_ATTEMPTS} times; then, like every other sign of a database that cannot serve, it
 *    fails with `StorageUnavailableError` (503). So work must have no effect outside the database:
 *    it returns data, and the caller emits events after commit.
 * 3. Each connection has `lock_timeout` (5 s, like SQLite's busy timeout), `statement_timeout`
 *    (10 s) and `idle_in_transaction_session_timeout` (15 s): a hung or killed process cannot hold
 *    locks for long, and the socket closing aborts its transaction.
 * 4. A COMMIT that PostgreSQL answers with ROLLBACK (the transaction had failed and the work
 *    swallowed the error) is a failure, never a silent success.
 */
import type pg from 'pg';
import type { StorageLock } from '../port/index.js';
import { isRetryable, isUnavailable, toStorageError } from './errors.js';

/** How many times a transaction runs before a serialization failure or deadlock becomes a 503. */
export const MAX_ATTEMPTS = 3;

const lockOrder: readonly StorageLock[] = ['setup', 'admins', 'settings'];

/** The advisory-lock key of a name: `hashtextextended('svc:<name>', 0)`, computed by the server. */
export const advisoryKey = (name: string): string => `hashtextextended('svc:${name}', 0)`;

/**
 * Runs `work` on one connection inside BEGIN … COMMIT with `locks` taken first, retrying on
 * serialization failures and deadlocks.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, options: { locks?: readonly StorageLock[] }): Promise<T> {
  const locks = lockOrder.filter((lock) => options.locks?.includes(lock) === true);
  for (let attempt = 1; ; attempt += 1) {
    const client = await connect(pool);
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      for (const lock of locks) await client.query(`SELECT pg_advisory_xact_lock(${advisoryKey(lock)})`);
      const result = await work(client);
      const commit = await client.query('COMMIT');
      if (commit.command === 'ROLLBACK') throw new Error('the transaction failed and was rolled back (a statement inside it failed)');
      return result;
    } catch (error) {
      broken = await rollback(client, error);
      if (isRetryable(error) && attempt < MAX_ATTEMPTS) continue;
      throw toStorageError(error);
    } finally {
      client.release(broken);
    }
  }
}

/** A pooled connection, or StorageUnavailableError when none can be had. */
export async function connect(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw toStorageError(error);
  }
}

/** Rolls back; answers the error to release the connection with when it is no longer usable. */
async function rollback(client: pg.PoolClient, cause: unknown): Promise<Error | undefined> {
  if (isUnavailable(cause) && !isRetryable(cause)) return cause instanceof Error ? cause : new Error(String(cause));
  try {
    await client.query('ROLLBACK');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
