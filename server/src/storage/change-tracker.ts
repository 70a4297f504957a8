/**
 * Tells the in-process caches when the data behind them may have changed. Another process's commit
 * changes `PRAGMA data_version` on this connection; this process's own writes call
 * {@link ChangeTracker.markChanged}. A cache stamped with {@link ChangeTracker.epoch} is valid while
 * the epoch stays the same.
 *
 * Reading `data_version` starts a read transaction, which costs two `fcntl` syscalls (the WAL read
 * lock). So it is read at most once per turn of the event loop: requests whose bytes were read in the
 * same turn share one reading. That keeps the guarantee the caches need: a client that learns of a
 * commit (for example the answer to a revocation) and then sends a request, sends bytes that arrive
 * after the commit, and the turn that reads them starts after it and reads `data_version` afresh.
 * The reading is reset by `setImmediate`, which runs right after the turn's I/O callbacks; as a
 * backstop, a reading is never reused for longer than {@link MAX_READING_AGE_MS}.
 */
import { performance } from 'node:perf_hooks';
import type { Database } from './database.js';

/** The longest a `data_version` reading is reused, whatever the event loop does. */
export const MAX_READING_AGE_MS = 2;

/** Detects writes by this process and by every other process sharing the database file. */
export class ChangeTracker {
  readonly #readDataVersion: () => number;
  readonly #clock: () => number;
  #dataVersion: number;
  #epoch = 0;
  /** When the current turn's reading was taken; null when no reading is current. */
  #readingTakenAt: number | null = null;
  readonly #endTurn = (): void => {
    this.#readingTakenAt = null;
  };

  /** @param clock - milliseconds from a monotonic clock; tests pass their own. */
  constructor(db: Database, clock: () => number = () => performance.now()) {
    this.#clock = clock;
    const statement = db.prepare('PRAGMA data_version').pluck();
    this.#readDataVersion = () => statement.get() as number;
    this.#dataVersion = this.#readDataVersion();
  }

  /** A number that changes whenever data may have changed since it was last read. */
  epoch(): number {
    const now = this.#clock();
    if (this.#readingTakenAt !== null && now - this.#readingTakenAt <= MAX_READING_AGE_MS) return this.#epoch;
    // Read first: a reading that failed (the database cannot be used) must not be reused as fresh.
    const dataVersion = this.#readDataVersion();
    if (this.#readingTakenAt === null) setImmediate(this.#endTurn);
    this.#readingTakenAt = now;
    if (dataVersion !== this.#dataVersion) {
      this.#dataVersion = dataVersion;
      this.#epoch += 1;
    }
    return this.#epoch;
  }

  /** Records a write made through this process's connection. */
  markChanged(): void {
    this.#epoch += 1;
  }
}
