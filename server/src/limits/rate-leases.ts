/**
 * Per-minute limits shared by several processes: each process leases blocks of a GCRA counter's
 * capacity from the shared {@link LimitCounterStore} and admits requests from its block without a
 * round trip, so a database sees one update per block, not per request. A block lapses after
 * `rateLeaseTtlMs`, which bounds how much the processes together can exceed the limit (docs/limits.md).
 */
import type { LimitCounter, LimitCounterStore, LimitCounterUpdate } from '../storage/port/usage.js';
import { advance, availableUnits, giveBack, lease, resetMs, waitFor, type LeaseGrant, type Rate } from './gcra.js';
import { resolveLeaseOptions, type LeaseOptions, type ResolvedLeaseOptions } from './lease-options.js';
import { SingleFlight } from './single-flight.js';

/** How many leases one call may take before giving up (others of this process kept using the blocks). */
const MAX_LEASES = 3;
/** How many times one call may look at its block (waiting for other calls' leases in between). */
const MAX_LOOKS = 64;

/** The state of one limit as this process sees it. */
export interface RateStatus {
  limit: number;
  /** Units that conform now (this process's block plus what the shared counter had left when last seen). */
  remaining: number;
  /** Milliseconds until the limit is full again. */
  resetMs: number;
}

/** The answer of {@link RateLeases.take}. */
export interface RateCheck extends RateStatus {
  allowed: boolean;
  /** When refused: milliseconds until the request would conform (`Infinity`: never, it is larger than the limit). */
  retryAfterMs: number;
}

interface LocalLease {
  /** Leased units not used yet. */
  units: number;
  /** When the unused units lapse. */
  expiresAt: number;
  /** The shared counter's TAT when last seen. */
  tat: number | null;
  /** Units given back after their block lapsed, to return to the counter with the next lease. */
  refund: number;
}

/** Leases of per-minute capacity held by this process. */
export class RateLeases {
  readonly #store: LimitCounterStore;
  readonly #options: ResolvedLeaseOptions;
  readonly #local = new Map<string, LocalLease>();
  readonly #leasing = new SingleFlight();

  constructor(store: LimitCounterStore, options: LeaseOptions = {}) {
    this.#store = store;
    this.#options = resolveLeaseOptions(options);
  }

  /**
   * Takes `cost` units of `subject`'s limit at `now` when this process's live block holds them,
   * without a round trip or a promise (the common case of a call under its limit); answers false,
   * taking nothing, when a lease is needed ({@link take} then decides).
   */
  takeLocal(subject: string, cost: number, now: number): boolean {
    const local = this.#local.get(subject);
    if (local === undefined) return false;
    if (local.expiresAt < now) {
      local.units = 0;
      return false;
    }
    if (local.units < cost) return false;
    local.units -= cost;
    return true;
  }

  /**
   * Takes `cost` units of `subject`'s limit at `now`, from this process's block or a new lease. One
   * lease per subject is in flight at a time: concurrent calls wait for it and share its block.
   */
  async take(subject: string, rate: Rate, cost: number, now: number): Promise<RateCheck> {
    let leases = 0;
    for (let look = 0; look < MAX_LOOKS && leases < MAX_LEASES; look += 1) {
      const local = this.#fresh(subject, now);
      if (local.units >= cost) {
        local.units -= cost;
        return { allowed: true, retryAfterMs: 0, ...this.status(subject, rate, now) };
      }
      const inFlight = this.#leasing.pending(subject);
      if (inFlight !== undefined) {
        await inFlight;
        continue;
      }
      leases += 1;
      // The block is filled before the lease settles, so the calls waiting for it find its units.
      const request = this.#leaseRequest(subject, rate, cost - local.units, now);
      const grant = await this.#leasing.run(subject, async () => {
        const granted = await this.#store.update<LeaseGrant>(subject, now, request.decide);
        request.apply(granted);
        return granted;
      });
      const after = this.#fresh(subject, now);
      if (grant.granted === 0) {
        // This process's units lapse before the wait ends: the caller then needs the whole cost from the counter.
        const lapses = after.units > 0 && after.expiresAt < now + grant.retryAfterMs;
        const retryAfterMs = lapses ? Math.max(grant.retryAfterMs, waitFor(grant.tat, now, cost, rate)) : grant.retryAfterMs;
        return { allowed: false, retryAfterMs, ...this.status(subject, rate, now) };
      }
      if (after.units >= cost) {
        after.units -= cost;
        return { allowed: true, retryAfterMs: 0, ...this.status(subject, rate, now) };
      }
      // Other calls of this process used the block meanwhile: look again.
    }
    const local = this.#fresh(subject, now);
    return { allowed: false, retryAfterMs: Math.max(1, waitFor(local.tat, now, cost, rate)), ...this.status(subject, rate, now) };
  }

  /**
   * Leases, in one store call, a block of each of `wanted` whose block cannot give its cost and that
   * has no lease in flight, when two or more are in that case (the blocks of one call's limits were
   * leased together, so they lapse together). Decides nothing about the call: {@link take} then takes
   * from the blocks, or leases on its own what they still lack.
   */
  async prefetch(wanted: readonly { subject: string; rate: Rate; cost: number }[], now: number): Promise<void> {
    const due = wanted.filter(({ subject, cost }) => this.#leasing.pending(subject) === undefined && this.#fresh(subject, now).units < cost);
    if (due.length < 2) return;
    const requests = due.map(({ subject, rate, cost }) => this.#leaseRequest(subject, rate, cost - this.#fresh(subject, now).units, now));
    await this.#leasing.runAll(
      due.map(({ subject }) => subject),
      async () => {
        const grants = await this.#store.updateMany(requests, now);
        grants.forEach((grant, index) => requests[index]?.apply(grant));
      },
    );
  }

  /**
   * Charges `units` more (a call that used more tokens than admitted): from the block, the rest on
   * the counter. Answers a promise only when the counter is written (from the block: done at once).
   */
  charge(subject: string, rate: Rate, units: number, now: number): Promise<void> | undefined {
    if (units <= 0) return undefined;
    const local = this.#fresh(subject, now);
    const fromBlock = Math.min(local.units, units);
    local.units -= fromBlock;
    const rest = units - fromBlock;
    if (rest === 0) return undefined;
    return this.#chargeCounter(subject, rate, rest, now);
  }

  async #chargeCounter(subject: string, rate: Rate, rest: number, now: number): Promise<void> {
    const tat = await this.#store.update(subject, now, (current) => {
      const next = advance(current?.value ?? null, now, rest, rate);
      return { next: { value: next, expiresAt: Math.ceil(next) + 1 }, result: next };
    });
    this.#fresh(subject, now).tat = tat;
  }

  /**
   * Gives back `units` admitted but not used: to the live block; after it lapsed, to the counter with
   * this process's next lease of the limit (until then they stay reserved: never an over-admission).
   * Without leases (`rateLeaseTtlMs: 0`), to the counter at once. Answers a promise only when the
   * counter is written.
   */
  giveBack(subject: string, rate: Rate, units: number, now: number): Promise<void> | undefined {
    if (units <= 0) return undefined;
    const local = this.#fresh(subject, now);
    if (this.#options.rateLeaseTtlMs > 0) {
      // To the live block; after it lapsed, with this process's next lease of the limit (no write
      // per call: a call that ends after its block lapsed would otherwise cost one).
      if (local.expiresAt >= now) local.units += units;
      else local.refund += units;
      return undefined;
    }
    return this.#giveBackToCounter(subject, rate, units, now);
  }

  async #giveBackToCounter(subject: string, rate: Rate, units: number, now: number): Promise<void> {
    const tat = await this.#store.update(subject, now, (current) => {
      if (current === null) return { next: null, result: null };
      const next = giveBack(current.value, now, units, rate);
      return { next: { value: next, expiresAt: Math.ceil(next) + 1 }, result: next };
    });
    this.#fresh(subject, now).tat = tat;
  }

  /** The limit's state as this process knows it, without a round trip. */
  status(subject: string, rate: Rate, now: number): RateStatus {
    return this.readStatus(subject, rate, now, { limit: 0, remaining: 0, resetMs: 0 });
  }

  /** {@link status} written into `into` (answered), for a caller that reads many without keeping them. */
  readStatus<Into extends RateStatus>(subject: string, rate: Rate, now: number, into: Into): Into {
    const local = this.#fresh(subject, now);
    into.limit = rate.limit;
    into.remaining = Math.min(rate.limit, local.units + availableUnits(local.tat, now, rate));
    into.resetMs = resetMs(local.tat, now);
    return into;
  }

  /**
   * A lease of at least `need` units of `subject` (a share of its limit when that is more): its counter update (units given back
   * after their block lapsed return to the counter with it) and what applying its grant does to the
   * block (filled before the lease settles, so the calls waiting for it find its units).
   */
  #leaseRequest(subject: string, rate: Rate, need: number, now: number): { subject: string; decide: (current: LimitCounter | null) => LimitCounterUpdate<LeaseGrant>; apply: (grant: LeaseGrant) => void } {
    const want = Math.max(need, Math.ceil(rate.limit * this.#options.rateLeaseFraction));
    const refund = this.#fresh(subject, now).refund;
    return {
      subject,
      decide: (current) => {
        const seen = current?.value ?? null;
        const tat = refund > 0 && seen !== null ? giveBack(seen, now, refund, rate) : seen;
        const answer = lease(tat, now, need, want, rate);
        const next = answer.granted > 0 ? answer.tat : tat;
        return { next: next !== seen && next !== null ? { value: next, expiresAt: Math.ceil(next) + 1 } : null, result: answer };
      },
      apply: (grant) => {
        const block = this.#fresh(subject, now);
        block.refund -= refund;
        block.tat = grant.tat;
        if (grant.granted > 0) {
          block.units += grant.granted;
          block.expiresAt = now + this.#options.rateLeaseTtlMs;
        }
      },
    };
  }

  /** Forgets limits that are full again and hold no block (bounds this process's memory). */
  forgetIdle(now: number): void {
    for (const [subject, local] of this.#local) {
      // A refund still pending changes nothing then: the limit is full again.
      if ((local.units === 0 || local.expiresAt <= now) && (local.tat === null || local.tat <= now)) this.#local.delete(subject);
    }
  }

  /** The lease of `subject`; a lapsed block loses its units (the shared TAT it saw stays). */
  #fresh(subject: string, now: number): LocalLease {
    let local = this.#local.get(subject);
    if (local === undefined) {
      local = { units: 0, expiresAt: now, tat: null, refund: 0 };
      this.#local.set(subject, local);
    } else if (local.expiresAt < now) {
      local.units = 0;
    }
    return local;
  }
}
