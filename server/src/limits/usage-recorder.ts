/**
 * Writes metered calls to the usage store in batches: {@link UsageRecorder.record} sums a call into
 * this process's pending batch (no I/O), and the batch is written in one statement when it grows past
 * `maxPendingRows`, when `flushIntervalMs` passed since the last write (checked on each record, with
 * the injected clock), or on {@link UsageRecorder.flush} (the server calls it on a timer, before a
 * usage report, and at shutdown). A batch that fails to be written is kept for the next attempt.
 */
import type { Clock } from '../runtime/clock.js';
import type { UsageTotalsStore } from '../storage/port/usage.js';
import { UsageMeter, type MeteredCall } from './usage-meter.js';

/** Options of {@link UsageRecorder}. */
export interface UsageRecorderOptions {
  /** Write at least this often while calls arrive (ms). @default 10000 */
  flushIntervalMs?: number;
  /** Write as soon as this many (hour, key, user, model) rows are pending. @default 500 */
  maxPendingRows?: number;
  /** Hears of a background write that failed (the batch is kept and written later). */
  onError?: (error: unknown) => void;
}

/** This process's metered calls on their way to the store. */
export class UsageRecorder {
  readonly #store: UsageTotalsStore;
  readonly #clock: Clock;
  readonly #meter = new UsageMeter();
  readonly #flushIntervalMs: number;
  readonly #maxPendingRows: number;
  readonly #onError: (error: unknown) => void;
  #lastFlush: number;
  #writing: Promise<void> = Promise.resolve();

  constructor(store: UsageTotalsStore, clock: Clock, options: UsageRecorderOptions = {}) {
    this.#store = store;
    this.#clock = clock;
    this.#flushIntervalMs = options.flushIntervalMs ?? 10_000;
    this.#maxPendingRows = options.maxPendingRows ?? 500;
    this.#onError = options.onError ?? (() => {});
    this.#lastFlush = clock.now();
  }

  /** Adds one call; starts a background write when the batch is due. */
  record(call: MeteredCall): void {
    this.#meter.record(call);
    if (this.#meter.pendingRows >= this.#maxPendingRows || this.#clock.now() - this.#lastFlush >= this.#flushIntervalMs) {
      this.flush().catch(this.#onError);
    }
  }

  /** How many rows wait to be written. */
  get pendingRows(): number {
    return this.#meter.pendingRows;
  }

  /** Writes the pending batch (after any write in progress); a failed batch is kept and the error thrown. */
  flush(): Promise<void> {
    const run = this.#writing.then(async () => {
      this.#lastFlush = this.#clock.now();
      const batch = this.#meter.drain();
      if (batch.length === 0) return;
      try {
        await this.#store.add(batch);
      } catch (error) {
        this.#meter.restore(batch);
        throw error;
      }
    });
    this.#writing = run.catch(() => {});
    return run;
  }
}
