/**
 * The SQLite {@link ChangeFeed}: tells the in-process caches which domains of data behind them
 * changed. Two readings on the adapter's reader connection:
 *
 * - `PRAGMA data_version`, which moves on every commit made through any other connection to the
 *   file (other processes, the audit writer thread, this process's own writer connection). It is
 *   cheap and says only *that* something was committed.
 * - the `cache_epochs` table (migration 021), one counter per domain bumped by triggers in the
 *   writing transaction, read only when `data_version` moved. It says *which* domains changed, with
 *   the same rules as PostgreSQL, so an audit append or a `last_used_at` touch moves nothing.
 *
 * Triggers rather than adapter calls: a bump cannot be forgotten by any store method, offline tool,
 * cascaded delete or an operator's manual SQL. `data_version` is read before the epochs, so a commit
 * landing between the two readings is either in the epochs read or moves `data_version` again.
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

/** How often each kind of reading was taken: for measurements and tests, never for decisions. */
export interface ChangeFeedCounters {
  /** `data_version` readings. */
  dataVersionReads: number;
  /** Readings of `data_version` that found it moved (each one dropped every cache before migration 021). */
  dataVersionChanges: number;
  /** `cache_epochs` readings (each after `data_version` moved, or after an own commit). */
  epochReads: number;
  /** Domain changes reported, summed over domains. */
  domainChanges: number;
}

/** The {@link ChangeFeedCounters} of every SQLite feed of this process, summed (measurements only). */
export const changeFeedTotals: ChangeFeedCounters = { dataVersionReads: 0, dataVersionChanges: 0, epochReads: 0, domainChanges: 0 };

/**
 * Commits made so far by every SQLite writer of this process. A reading is reused only while this
 * is unchanged: a commit by another `SqliteStorage` of this process (the same file opened twice)
 * completes within a turn, and must be seen by the next `current()` of every feed, in that turn too.
 * Other processes' commits reach this one through I/O, so a new turn, which reads afresh anyway.
 */
let commitsInThisProcess = 0;

/** Detects commits by this process and by every other process sharing the database file. */
export class SqliteChangeFeed implements ChangeFeed {
  readonly listening = true;

  /** SQLite has no LISTEN connection: other processes' commits are seen through `data_version`. */
  listenerStatus(): null {
    return null;
  }
  /** Readings taken so far (see {@link ChangeFeedCounters}). */
  readonly counters: ChangeFeedCounters = { dataVersionReads: 0, dataVersionChanges: 0, epochReads: 0, domainChanges: 0 };
  readonly #readDataVersion: () => number;
  readonly #readEpochs: () => Epochs;
  readonly #monotonicNow: () => number;
  readonly #listeners = new Set<(domain: CacheDomain) => void>();
  #dataVersion: number;
  #epochs: Epochs;
  /** When the current turn's reading was taken; null when no reading is current. */
  #readingTakenAt: number | null = null;
  /** {@link commitsInThisProcess} when the reading was taken. */
  #readingCommits = 0;
  #turnEndScheduled = false;
  readonly #endTurn = (): void => {
    this.#turnEndScheduled = false;
    this.#readingTakenAt = null;
  };

  /**
   * @param reader - the connection root-level reads use (also the writer's, for an in-memory copy:
   *   own commits are then seen through {@link noteOwnCommit}'s epoch read, not `data_version`).
   * @param options.monotonicNow - milliseconds from a monotonic clock; tests pass their own.
   */
  constructor(reader: Database, options: { monotonicNow?: () => number } = {}) {
    this.#monotonicNow = options.monotonicNow ?? (() => performance.now());
    const dataVersion = reader.prepare('PRAGMA data_version').pluck();
    this.#readDataVersion = () => {
      this.counters.dataVersionReads += 1;
      changeFeedTotals.dataVersionReads += 1;
      return dataVersion.get() as number;
    };
    const epochs = reader.prepare<[], { domain: CacheDomain; epoch: number }>('SELECT domain, epoch FROM cache_epochs');
    this.#readEpochs = () => {
      this.counters.epochReads += 1;
      changeFeedTotals.epochReads += 1;
      const read = { access: 0, bans: 0, models: 0 };
      for (const row of epochs.all()) read[row.domain] = row.epoch;
      return read;
    };
    this.#dataVersion = attemptSync(this.#readDataVersion);
    this.#epochs = attemptSync(this.#readEpochs);
  }

  /**
   * The epochs, synchronously: a domain's epoch changes whenever its data may have changed since it
   * was last read.
   *
   * @throws {StorageUnavailableError} when the database cannot be read now.
   */
  current(): Epochs {
    const now = this.#monotonicNow();
    if (this.#readingTakenAt !== null && now - this.#readingTakenAt <= MAX_READING_AGE_MS && this.#readingCommits === commitsInThisProcess) return this.#epochs;
    // Read first: a reading that failed (the database cannot be used) must not be reused as fresh.
    const dataVersion = attemptSync(this.#readDataVersion);
    if (dataVersion !== this.#dataVersion) {
      this.counters.dataVersionChanges += 1;
      changeFeedTotals.dataVersionChanges += 1;
      this.#epochs = this.#compare(attemptSync(this.#readEpochs), this.#epochs).epochs;
      this.#dataVersion = dataVersion;
    }
    if (!this.#turnEndScheduled) {
      this.#turnEndScheduled = true;
      setImmediate(this.#endTurn);
    }
    this.#readingTakenAt = now;
    this.#readingCommits = commitsInThisProcess;
    return this.#epochs;
  }

  onChange(listener: (domain: CacheDomain) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Called by the adapter after each commit of this process's writer: the next {@link current} reads
   * `data_version` afresh, and so does every other feed of this process (so this turn's later requests
   * see the write, whichever storage they use), and listeners hear of the
   * domains it changed, and only those. Never throws: when the epochs cannot be read now, the next
   * {@link current} reads them (or fails closed).
   */
  noteOwnCommit(): void {
    commitsInThisProcess += 1;
    this.#readingTakenAt = null;
    let read: Epochs;
    try {
      read = this.#readEpochs();
    } catch {
      return;
    }
    const { epochs, changed } = this.#compare(read, this.#epochs);
    this.#epochs = epochs;
    for (const domain of changed) for (const listener of this.#listeners) listener(domain);
  }

  /** `read` where it differs from `known` (the same object where it does not), and which domains moved. */
  #compare(read: Epochs, known: Epochs): { epochs: Epochs; changed: CacheDomain[] } {
    const changed = domains.filter((domain) => read[domain] !== known[domain]);
    this.counters.domainChanges += changed.length;
    changeFeedTotals.domainChanges += changed.length;
    return { epochs: changed.length === 0 ? known : read, changed };
  }
}
