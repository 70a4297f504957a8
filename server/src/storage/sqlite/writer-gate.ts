/**
 * The SQLite writer connection's mutex. The port's transactions are async: between the awaits inside
 * a transaction's work, other requests' continuations run. Were their writes sent down the writer
 * connection then, they would land inside the open transaction (and be rolled back with it). So a
 * root-level write runs at once while no transaction is open (synchronously: no extra turn), and
 * otherwise queues behind the transaction, in arrival order.
 *
 * A write that finds the file locked by another connection (`SQLITE_BUSY`: the writer runs with
 * `busy_timeout = 0`) keeps the mutex and is retried on timers ({@link retryWhileBusy}), so the event
 * loop never sleeps waiting for another process's lock.
 */
import { defaultBusyPolicy, isBusy, retryWhileBusy, type BusyPolicy } from './busy-retry.js';
import { attempt, toStorageError } from './errors.js';

/** Who may use the writer connection next. */
export interface WriterGate {
  /** Runs a synchronous write (one statement, or a better-sqlite3 transaction) when the connection is free. */
  write<T>(work: () => T): Promise<T>;
}

/** A gate for the stores bound to an open transaction: the connection is theirs, so writes run at once. */
export const openGate: WriterGate = { write: attempt };

/** The writer connection's FIFO mutex. */
export class WriterMutex implements WriterGate {
  #held = false;
  readonly #waiting: (() => void)[] = [];
  /** Called after each write or transaction that committed. */
  readonly #afterCommit: () => void;
  readonly #busyPolicy: BusyPolicy;

  constructor(afterCommit: () => void, busyPolicy: BusyPolicy = defaultBusyPolicy) {
    this.#afterCommit = afterCommit;
    this.#busyPolicy = busyPolicy;
  }

  write<T>(work: () => T): Promise<T> {
    if (!this.#held) {
      this.#held = true;
      return this.#runHeld(work);
    }
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push(() => {
        this.#runHeld(work).then(resolve, reject);
      });
    });
  }

  /** Runs `work` while holding the mutex (synchronously when the file is not locked), then releases it. */
  #runHeld<T>(work: () => T): Promise<T> {
    let result: T;
    try {
      result = work();
    } catch (error) {
      if (isBusy(error)) return this.#retryHeld(work);
      this.release();
      return Promise.reject(toStorageError(error));
    }
    this.#committedThenRelease();
    return Promise.resolve(result);
  }

  async #retryHeld<T>(work: () => T): Promise<T> {
    let result: T;
    try {
      result = await retryWhileBusy(work, this.#busyPolicy.monotonicNow(), this.#busyPolicy);
    } catch (error) {
      this.release();
      throw error;
    }
    this.#committedThenRelease();
    return result;
  }

  /** Reports the commit before the next write runs (so reports keep commit order), then releases. */
  #committedThenRelease(): void {
    try {
      this.#afterCommit();
    } finally {
      this.release();
    }
  }

  /**
   * Runs a synchronous step that takes SQLite's write lock (`BEGIN IMMEDIATE`) for the caller holding
   * the mutex: at once when the file is free, else retried on timers within the busy budget.
   *
   * @throws {StorageUnavailableError} when the lock stays taken for the whole budget.
   */
  lockFile(begin: () => void): Promise<void> | undefined {
    try {
      begin();
      return undefined;
    } catch (error) {
      if (!isBusy(error)) throw toStorageError(error);
      return retryWhileBusy(begin, this.#busyPolicy.monotonicNow(), this.#busyPolicy);
    }
  }

  /** Takes the mutex for a transaction; resolves when it is this caller's. Pair with {@link release}. */
  acquire(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the mutex to the next waiter, or frees it. */
  release(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#held = false;
    else next();
  }

  /** Runs after a transaction committed. */
  committed(): void {
    this.#afterCommit();
  }
}
