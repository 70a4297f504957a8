/**
 * The SQLite {@link ChangeFeed}: tells the in-process caches when the data behind them may have
 * changed, from `PRAGMA data_version` on the adapter's reader connection. That number changes on
 * every commit made through any other connection to the file: other processes, the audit writer
 * thread, and this process's own writer connection. So every epoch change happens after a commit,
 * and there is no "mark changed" call a write could forget. The three cache domains share one epoch.
 *
 * Reading `data_version` starts a read transaction, which costs two `fcntl` syscalls (the WAL read
 * lock). So it is read at most once per turn of the event loop: requests whose bytes were read in the
 * same turn share one reading. That keeps the guarantee the caches need: a client that learns of a
 * commit (for example the answer to a revocation) and then sends a request, sends bytes that arrive
 * after the commit, and the turn that reads them starts after it and reads `data_version` afresh.
 * The reading is reset by `setImmediate`, which runs right after the turn's I/O callbacks, and by
 * every commit of this process's writer ({@link SqliteChangeFeed.noteOwnCommit}); as a backstop, a
 * reading is never reused for longer than {@link MAX_READING_AGE_MS}.
 */
import { performance } from 'node:perf_hooks';
import type { CacheDomain, ChangeFeed, Epochs } from '../port/changes.js';
import type { Database } from './database.js';
import { attemptSync } from './errors.js';

/** The longest a `data_version` reading is reused, whatever the event loop does. */
export const MAX_READING_AGE_MS = 2;

const domains: readonly CacheDomain[] = ['access', 'bans', 'models'];

/** Detects commits by this process and by every other process sharing the database file. */
export class SqliteChangeFeed implements ChangeFeed {
  readonly listening = true;
  readonly #readDataVersion: () => number;
  readonly #monotonicNow: () => number;
  /** True when reads and writes share one connection (an in-memory copy), whose own commits `data_version` does not show. */
  readonly #sharedConnection: boolean;
  readonly #listeners = new Set<(domain: CacheDomain) => void>();
  #dataVersion: number;
  #epochs: Epochs = { access: 0, bans: 0, models: 0 };
  /** When the current turn's reading was taken; null when no reading is current. */
  #readingTakenAt: number | null = null;
  #turnEndScheduled = false;
  readonly #endTurn = (): void => {
    this.#turnEndScheduled = false;
    this.#readingTakenAt = null;
  };

  /**
   * @param reader - the connection root-level reads use.
   * @param options.sharedConnection - the writer is the same connection as the reader.
   * @param options.monotonicNow - milliseconds from a monotonic clock; tests pass their own.
   */
  constructor(reader: Database, options: { sharedConnection?: boolean; monotonicNow?: () => number } = {}) {
    this.#monotonicNow = options.monotonicNow ?? (() => performance.now());
    this.#sharedConnection = options.sharedConnection ?? false;
    const statement = reader.prepare('PRAGMA data_version').pluck();
    this.#readDataVersion = () => statement.get() as number;
    this.#dataVersion = attemptSync(this.#readDataVersion);
  }

  /**
   * The epochs, synchronously: they change whenever data may have changed since they were last read.
   *
   * @throws {StorageUnavailableError} when the database cannot be read now.
   */
  current(): Epochs {
    const now = this.#monotonicNow();
    if (this.#readingTakenAt !== null && now - this.#readingTakenAt <= MAX_READING_AGE_MS) return this.#epochs;
    // Read first: a reading that failed (the database cannot be used) must not be reused as fresh.
    const dataVersion = attemptSync(this.#readDataVersion);
    if (!this.#turnEndScheduled) {
      this.#turnEndScheduled = true;
      setImmediate(this.#endTurn);
    }
    this.#readingTakenAt = now;
    if (dataVersion !== this.#dataVersion) {
      this.#dataVersion = dataVersion;
      this.#advance();
    }
    return this.#epochs;
  }

  onChange(listener: (domain: CacheDomain) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Called by the adapter after each commit of this process's writer: the next {@link current} reads
   * `data_version` afresh (so this turn's later requests see the write), and listeners hear of it.
   */
  noteOwnCommit(): void {
    this.#readingTakenAt = null;
    if (this.#sharedConnection) this.#advance();
    for (const listener of this.#listeners) for (const domain of domains) listener(domain);
  }

  #advance(): void {
    const next = this.#epochs.access + 1;
    this.#epochs = { access: next, bans: next, models: next };
  }
}
