/**
 * Waiting for another process's write lock without blocking the event loop. The writer connection
 * runs with `busy_timeout = 0`, so a write that finds the file locked fails at once with
 * `SQLITE_BUSY` instead of sleeping synchronously inside SQLite (which would freeze every request of
 * this process, including the one holding the lock in another `SqliteStorage` of the same process).
 * The write is then tried again on timers, with a growing, jittered pause, until the same 5-second
 * budget SQLite's busy timeout gave; past it, the last `SQLITE_BUSY` surfaces as
 * `StorageUnavailableError` (503).
 *
 * Retrying is safe: a statement or transaction that failed with `SQLITE_BUSY` wrote nothing.
 */
import { sqliteCode, toStorageError } from './errors.js';

/** How long, and how, a write waits for another process's lock. */
export interface BusyPolicy {
  /** The longest a write keeps retrying, from its first attempt. @default 5000 */
  readonly budgetMs: number;
  /** The first pause; each next one doubles, up to {@link maxPauseMs}. @default 1 */
  readonly firstPauseMs: number;
  /** @default 50 */
  readonly maxPauseMs: number;
  /** Milliseconds from a monotonic clock. @default performance.now */
  readonly monotonicNow: () => number;
}

/** The policy of the SQLite adapter's writer: the budget the synchronous busy timeout had. */
export const defaultBusyPolicy: BusyPolicy = {
  budgetMs: 5000,
  firstPauseMs: 1,
  maxPauseMs: 50,
  // The global, so tests' fake timers move it too.
  monotonicNow: () => globalThis.performance.now(),
};

/** Resolves after `ms` on the global timers (which tests' fake timers control). */
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `error` says the database is locked by another connection (worth waiting for). */
export function isBusy(error: unknown): boolean {
  const code = sqliteCode(error);
  return code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED' || code.startsWith('SQLITE_LOCKED_');
}

/**
 * Runs `work` again (it failed busy at `startedAt`) after pauses on timers, until it succeeds, fails
 * otherwise, or the budget is spent.
 *
 * @throws {StorageUnavailableError} when the lock is still held at the end of the budget.
 */
export async function retryWhileBusy<T>(work: () => T, startedAt: number, policy: BusyPolicy = defaultBusyPolicy): Promise<T> {
  let nextPause = policy.firstPauseMs;
  for (;;) {
    const remaining = policy.budgetMs - (policy.monotonicNow() - startedAt);
    if (remaining <= 0) throw toStorageError(Object.assign(new Error('the database is locked by another process'), { code: 'SQLITE_BUSY' }));
    // Jitter keeps two waiting processes from retrying in lockstep.
    await pause(Math.min(remaining, nextPause * (0.5 + Math.random())));
    try {
      return work();
    } catch (error) {
      if (!isBusy(error)) throw toStorageError(error);
    }
    nextPause = Math.min(nextPause * 2, policy.maxPauseMs);
  }
}
