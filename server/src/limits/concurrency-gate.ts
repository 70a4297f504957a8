/**
 * Concurrent requests in flight: a slot per request under a subject's cap, taken when the request is
 * admitted and given back when its answer (or stream) ends. Slots live in the
 * {@link LimitCounterStore}: exact across processes, at one store call at each end of a limited
 * request (no lease can make a cap on simultaneous requests cheaper without loosening it). A slot
 * expires after `slotTtlMs` so a process that died does not hold it forever.
 */
import type { LimitCounterStore } from '../storage/port/usage.js';

/** Options of {@link ConcurrencyGate}. */
export interface ConcurrencyGateOptions {
  /** How long a slot is held at most (ms): the longest request svc serves. @default 600000 */
  slotTtlMs?: number;
}

/** Slots of requests in flight. */
export class ConcurrencyGate {
  readonly #store: LimitCounterStore;
  readonly #slotTtlMs: number;

  constructor(store: LimitCounterStore, options: ConcurrencyGateOptions = {}) {
    this.#store = store;
    this.#slotTtlMs = options.slotTtlMs ?? 600_000;
    if (!(this.#slotTtlMs > 0)) throw new RangeError('slotTtlMs must be positive');
  }

  /** Takes a slot of `subject` for `holder` (a request id) when fewer than `limit` are held. */
  acquire(subject: string, holder: string, limit: number, now: number): Promise<boolean> {
    return this.#store.acquireSlot(subject, holder, limit, now, now + this.#slotTtlMs);
  }

  /** Gives `holder`'s slot back. */
  release(subject: string, holder: string): Promise<void> {
    return this.#store.releaseSlot(subject, holder);
  }
}
