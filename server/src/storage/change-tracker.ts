/**
 * Tells the in-process caches when the data behind them may have changed. Another process's commit
 * changes `PRAGMA data_version` on this connection; this process's own writes call {@link ChangeTracker.markChanged}.
 * A cache stamped with {@link ChangeTracker.epoch} is valid while the epoch stays the same.
 */
import type { Database } from './database.js';

/** Detects writes by this process and by every other process sharing the database file. */
export class ChangeTracker {
  readonly #readDataVersion: () => number;
  #dataVersion: number;
  #epoch = 0;

  constructor(db: Database) {
    const statement = db.prepare('PRAGMA data_version').pluck();
    this.#readDataVersion = () => statement.get() as number;
    this.#dataVersion = this.#readDataVersion();
  }

  /** A number that changes whenever data may have changed since it was last read. */
  epoch(): number {
    const dataVersion = this.#readDataVersion();
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
