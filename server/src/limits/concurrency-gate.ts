/**
 * Concurrent requests in flight under a subject's cap, shared by several processes through leases
 * of slots: each process holds a number of the subject's slots in the {@link LimitCounterStore}
 * (`holdSlots`, one store call whatever the number) and admits its requests from them in memory.
 * When its requests fill what it holds, it leases more (what it needs plus a cushion of
 * `⌊cap × slotLeaseFraction⌋`, at most {@link MAX_SLOT_CUSHION}); it gives the cushion's surplus back
 * when more than two cushions lie idle, and every slot back when none of its requests held one for
 * `slotLingerMs` (1 s).
 *
 * Across processes the cap is never exceeded: the slots held by all processes together never pass
 * it. The trade is the other way: a request may be refused while another process that served a
 * request within the last `slotLingerMs` holds up to two cushions of idle slots (none for a cap under
 * 1 / `slotLeaseFraction`, 20 by default: those are taken and given back one by one, a store call at
 * each end of a request, as before leases). A lease expires `slotTtlMs` plus a tenth of it
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
  /** How long a process keeps its slots once it has no request in flight (ms; 0: gives them back at once). @default 1000 */
  slotLingerMs?: number;
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
  /** A release of every slot is scheduled (the lease went idle). */
  lingering: boolean;
  /** The store call in progress for this subject (they run one at a time). */
  busy: Promise<unknown> | null;
}

/** Slots of requests in flight, leased by this process. */
export class ConcurrencyGate {
  readonly #store: LimitCounterStore;
  readonly #slotTtlMs: number;
  readonly #fraction: number;
  readonly #lingerMs: number;
  /** This process's name among the slots' holders. */
  readonly #holder = `lease:${randomUUID()}`;
  /** By subject; kept while the process runs (one small record per key or user with a cap it served). */
  readonly #leases = new Map<string, SlotLease>();

  constructor(store: LimitCounterStore, options: ConcurrencyGateOptions = {}) {
    this.#store = store;
    this.#slotTtlMs = options.slotTtlMs ?? 600_000;
    this.#fraction = options.slotLeaseFraction ?? 0.05;
    this.#lingerMs = options.slotLingerMs ?? 1000;
    if (!(this.#slotTtlMs > 0)) throw new RangeError('slotTtlMs must be positive');
    if (!(this.#fraction >= 0 && this.#fraction <= 1)) throw new RangeError('slotLeaseFraction must be between 0 and 1');
    if (!(this.#lingerMs >= 0)) throw new RangeError('slotLingerMs must not be negative');
  }

  /**
   * Takes a slot of `subject` for a request when fewer than `limit` are held by every process
   * together: from this process's lease without a store call when it has one free, else by leasing.
   */
  async acquire(subject: string, limit: number, now: number): Promise<boolean> {
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

  /**
   * Gives a request's slot back to this process's lease, and idle slots back to the store: with no
   * cushion (a small cap) at once, as a slot per request; past two idle cushions down to one; and
   * every slot once no request of this process has held one for `slotLingerMs`.
   */
  async release(subject: string): Promise<void> {
    const lease = this.#leases.get(subject);
    if (lease === undefined || lease.inFlight === 0) return;
    lease.inFlight -= 1;
    if (lease.inFlight === 0 && lease.held > 0 && lease.cushion > 0 && this.#lingerMs > 0) {
      this.#releaseWhenIdle(subject, lease);
      return;
    }
    if (this.#target(lease) !== null) await this.#shrink(subject, lease);
  }

  /** Gives every slot of `subject` back after the linger, unless a request took one meanwhile. */
  #releaseWhenIdle(subject: string, lease: SlotLease): void {
    if (lease.lingering) return;
    lease.lingering = true;
    const timer = setTimeout(() => {
      lease.lingering = false;
      // A failed write leaves the slots to expire on their own.
      if (lease.inFlight === 0) this.#shrink(subject, lease).catch(() => undefined);
    }, this.#lingerMs);
    timer.unref();
  }

  #shrink(subject: string, lease: SlotLease): Promise<void> {
    return this.#exclusive(lease, async () => {
      const target = this.#target(lease);
      if (target === null) return;
      // Shrinking always fits: no cap to check, nothing to expire first (time 0).
      lease.held = await this.#store.holdSlots(subject, this.#holder, target, 0, Number.MAX_SAFE_INTEGER, 0, lease.expiresAt);
    });
  }

  /** How many slots the lease should shrink to now (null: keep them). */
  #target(lease: SlotLease): number | null {
    if (lease.held <= lease.inFlight) return null;
    if (lease.cushion === 0 || lease.inFlight === 0) return lease.inFlight;
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
      lease = { held: 0, inFlight: 0, expiresAt: 0, cushion: 0, lingering: false, busy: null };
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
