/**
 * Concurrent requests in flight under a subject's cap, shared by several processes through leases
 * of slots: each process holds a number of the subject's slots in the {@link LimitCounterStore}
 * (`holdSlots`, one store call whatever the number) and admits its requests from them in memory.
 * When its requests fill what it holds, it leases more (what it needs plus a cushion of
 * `⌊cap × slotLeaseFraction⌋`, at most {@link MAX_SLOT_CUSHION}); it gives the cushion's surplus back
 * when more than two cushions lie idle, and every slot back when its last request ends.
 *
 * Across processes the cap is never exceeded: the slots held by all processes together never pass
 * it. The trade is the other way: a request may be refused while another process holds up to two
 * cushions of idle slots (none for a cap under 1 / `slotLeaseFraction`, 20 by default: those are
 * leased one by one, exactly as a slot per request). A lease expires `slotTtlMs` plus a tenth of it
 * after it was last written and is renewed before it covers less than `slotTtlMs`, so a request is
 * counted for at least `slotTtlMs`, and a process that died holds nothing for longer (docs/limits.md).
 */
import { randomUUID } from 'node:crypto';
import type { LimitCounterStore } from '../storage/port/usage.js';

/** Options of {@link ConcurrencyGate}. */
export interface ConcurrencyGateOptions {
  /** How long a slot is held at most (ms): the longest request svc serves. @default 600000 */
  slotTtlMs?: number;
  /**
   * The cushion of slots a process leases beyond what it needs, as a fraction of the cap (at most
   * {@link MAX_SLOT_CUSHION}). 0: a store call at each start and end of a request. @default 0.05
   */
  slotLeaseFraction?: number;
}

/** The largest cushion a process leases beyond its requests in flight. */
export const MAX_SLOT_CUSHION = 64;

/** One subject's slots as this process holds them. */
interface SlotLease {
  /** Slots this process holds in the store. */
  held: number;
  /** Requests of this process holding one. */
  inFlight: number;
  /** When the held slots expire in the store. */
  expiresAt: number;
  /** The idle slots kept beyond the requests in flight (from the cap last seen). */
  cushion: number;
  /** The store call in progress for this subject (they run one at a time). */
  busy: Promise<unknown> | null;
}

/** Slots of requests in flight, leased by this process. */
export class ConcurrencyGate {
  readonly #store: LimitCounterStore;
  readonly #slotTtlMs: number;
  readonly #fraction: number;
  /** This process's name among the slots' holders. */
  readonly #holder = `lease:${randomUUID()}`;
  readonly #leases = new Map<string, SlotLease>();

  constructor(store: LimitCounterStore, options: ConcurrencyGateOptions = {}) {
    this.#store = store;
    this.#slotTtlMs = options.slotTtlMs ?? 600_000;
    this.#fraction = options.slotLeaseFraction ?? 0.05;
    if (!(this.#slotTtlMs > 0)) throw new RangeError('slotTtlMs must be positive');
    if (!(this.#fraction >= 0 && this.#fraction <= 1)) throw new RangeError('slotLeaseFraction must be between 0 and 1');
  }

  /**
   * Takes a slot of `subject` for a request when fewer than `limit` are held by every process
   * together: from this process's lease without a store call when it has one free, else by leasing.
   * (`holder`, the request's id, names nothing in the store: the slots are the process's.)
   */
  async acquire(subject: string, _holder: string, limit: number, now: number): Promise<boolean> {
    const lease = this.#lease(subject);
    lease.cushion = this.#cushion(limit);
    if (lease.busy === null && this.#fits(lease, now)) {
      lease.inFlight += 1;
      return true;
    }
    return this.#exclusive(lease, async () => {
      if (this.#fits(lease, now)) {
        lease.inFlight += 1;
        return true;
      }
      const needed = lease.inFlight + 1;
      const expiresAt = this.#expiry(now);
      const held = await this.#store.holdSlots(subject, this.#holder, needed + lease.cushion, needed, limit, now, expiresAt);
      lease.held = held;
      if (held < needed) return false;
      lease.expiresAt = expiresAt;
      lease.inFlight += 1;
      return true;
    });
  }

  /** Gives a request's slot back to this process's lease; gives idle slots back to the store as described above. */
  async release(subject: string, _holder: string): Promise<void> {
    const lease = this.#leases.get(subject);
    if (lease === undefined || lease.inFlight === 0) return;
    lease.inFlight -= 1;
    if (this.#target(lease) === null) return;
    await this.#exclusive(lease, async () => {
      const target = this.#target(lease);
      if (target === null) return;
      // Shrinking always fits: no cap to check, nothing to expire first (time 0).
      lease.held = await this.#store.holdSlots(subject, this.#holder, target, 0, Number.MAX_SAFE_INTEGER, 0, lease.expiresAt);
      if (lease.held === 0 && lease.inFlight === 0 && lease.busy === null) this.#leases.delete(subject);
    });
  }

  /** How many slots the lease should shrink to now (null: keep them). */
  #target(lease: SlotLease): number | null {
    if (lease.inFlight === 0) return lease.held > 0 ? 0 : null;
    return lease.held - lease.inFlight > 2 * lease.cushion ? lease.inFlight + lease.cushion : null;
  }

  #fits(lease: SlotLease, now: number): boolean {
    return lease.inFlight < lease.held && lease.expiresAt - now >= this.#slotTtlMs;
  }

  #cushion(limit: number): number {
    return Math.min(MAX_SLOT_CUSHION, Math.floor(limit * this.#fraction));
  }

  /** A lease written at `now` lasts the slot lifetime plus a tenth of it, so it is renewed about once per that tenth. */
  #expiry(now: number): number {
    return now + this.#slotTtlMs + Math.ceil(this.#slotTtlMs / 10);
  }

  #lease(subject: string): SlotLease {
    let lease = this.#leases.get(subject);
    if (lease === undefined) {
      lease = { held: 0, inFlight: 0, expiresAt: 0, cushion: 0, busy: null };
      this.#leases.set(subject, lease);
    }
    return lease;
  }

  /** Runs `work` after this subject's store call in progress, one at a time. */
  async #exclusive<T>(lease: SlotLease, work: () => Promise<T>): Promise<T> {
    while (lease.busy !== null) await lease.busy.catch(() => undefined);
    const running = work();
    lease.busy = running;
    try {
      return await running;
    } finally {
      if (lease.busy === running) lease.busy = null;
    }
  }
}
