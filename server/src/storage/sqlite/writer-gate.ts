/**
 * The SQLite writer connection's mutex. The port's transactions are async: between the awaits inside
 * a transaction's work, other requests' continuations run. Were their writes sent down the writer
 * connection then, they would land inside the open transaction (and be rolled back with it). So a
 * root-level write runs at once while no transaction is open (synchronously: no extra turn), and
 * otherwise queues behind the transaction, in arrival order.
 */
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

  constructor(afterCommit: () => void) {
    this.#afterCommit = afterCommit;
  }

  write<T>(work: () => T): Promise<T> {
    if (!this.#held) return this.#runWrite(work);
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push(() => {
        this.#runWrite(work).then(resolve, reject);
        this.release();
      });
    });
  }

  #runWrite<T>(work: () => T): Promise<T> {
    try {
      const result = work();
      this.#afterCommit();
      return Promise.resolve(result);
    } catch (error) {
      return Promise.reject(toStorageError(error));
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
