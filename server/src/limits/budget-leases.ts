/**
 * Token budgets (per UTC day or month) shared by several processes: one counter per subject and
 * period holds the tokens used (and leased); each process leases blocks of the budget and spends
 * them without a round trip. A new period has a new counter, so a budget starts again from zero at
 * the boundary. The old period's counter expires at its end.
 */
import type { LimitCounterStore } from '../storage/port/usage.js';
import { periodBounds, type BudgetPeriod, type PeriodBounds } from './budget-period.js';
import { resolveLeaseOptions, type LeaseOptions, type ResolvedLeaseOptions } from './lease-options.js';
import { SingleFlight } from './single-flight.js';
import type { TokenBudget } from './usage-limits.js';

/** How many leases one call may take before giving up (others of this process kept using the blocks). */
const MAX_LEASES = 3;
/** How many times one call may look at its block (waiting for other calls' leases in between). */
const MAX_LOOKS = 64;

/** The answer of {@link BudgetLeases.take}. */
export interface BudgetCheck {
  allowed: boolean;
  /** Tokens left in the period as this process knows it. */
  remaining: number;
  /** Milliseconds until the period ends (when refused: when to retry). */
  resetMs: number;
}

/** The period a subject's budget counts in now, and its counter's name (so neither is rebuilt per call). */
interface CurrentPeriod {
  kind: BudgetPeriod;
  period: PeriodBounds;
  counter: string;
}

interface LocalBlock {
  units: number;
  /** The shared counter (tokens used and leased in the period) when last seen. */
  used: number;
}

/** Budget leases held by this process. */
export class BudgetLeases {
  readonly #store: LimitCounterStore;
  readonly #options: ResolvedLeaseOptions;
  readonly #local = new Map<string, LocalBlock>();
  readonly #leasing = new SingleFlight();
  /** By subject: the period of its budget last seen. */
  readonly #periods = new Map<string, CurrentPeriod>();

  constructor(store: LimitCounterStore, options: LeaseOptions = {}) {
    this.#store = store;
    this.#options = resolveLeaseOptions(options);
  }

  /**
   * Takes `cost` tokens of `subject`'s budget for the period holding `now` when this process's block
   * holds them, without a round trip or a promise; answers false, taking nothing, when a lease is
   * needed ({@link take} then decides).
   */
  takeLocal(subject: string, budget: TokenBudget, cost: number, now: number): boolean {
    const local = this.#local.get(this.#current(subject, budget, now).counter);
    if (local === undefined || local.units < cost) return false;
    local.units -= cost;
    return true;
  }

  /** Takes `cost` tokens of `subject`'s budget for the period holding `now`. */
  async take(subject: string, budget: TokenBudget, cost: number, now: number): Promise<BudgetCheck> {
    const { period, counter } = this.#current(subject, budget, now);
    let leases = 0;
    for (let look = 0; look < MAX_LOOKS && leases < MAX_LEASES; look += 1) {
      const local = this.#block(counter);
      if (local.units >= cost) {
        local.units -= cost;
        return { allowed: true, ...this.#status(local, budget, period, now) };
      }
      // One lease per counter in flight: concurrent calls wait for it and share its block.
      const inFlight = this.#leasing.pending(counter);
      if (inFlight !== undefined) {
        await inFlight;
        continue;
      }
      leases += 1;
      const need = cost - local.units;
      const want = Math.max(need, Math.ceil(budget.tokens * this.#options.budgetLeaseFraction));
      // The block is filled before the lease settles, so the calls waiting for it find its tokens.
      const grant = await this.#leasing.run(counter, async () => {
        const granted = await this.#store.update(counter, now, (current) => {
          const used = current?.value ?? 0;
          const left = budget.tokens - used;
          if (left < need) return { next: null, result: { granted: 0, used } };
          const taken = Math.min(want, left);
          return { next: { value: used + taken, expiresAt: period.end }, result: { granted: taken, used: used + taken } };
        });
        const block = this.#block(counter);
        block.used = granted.used;
        block.units += granted.granted;
        return granted;
      });
      const after = this.#block(counter);
      if (grant.granted === 0) return { allowed: false, ...this.#status(after, budget, period, now) };
      if (after.units >= cost) {
        after.units -= cost;
        return { allowed: true, ...this.#status(after, budget, period, now) };
      }
    }
    return { allowed: false, ...this.#status(this.#block(counter), budget, period, now) };
  }

  /**
   * Charges `tokens` more than were admitted: from the block, the rest on the counter (it may
   * overdraw). Answers a promise only when the counter is written (from the block: done at once).
   */
  charge(subject: string, budget: TokenBudget, tokens: number, now: number): Promise<void> | undefined {
    if (tokens <= 0) return undefined;
    const { period, counter } = this.#current(subject, budget, now);
    const local = this.#block(counter);
    const fromBlock = Math.min(local.units, tokens);
    local.units -= fromBlock;
    const rest = tokens - fromBlock;
    if (rest === 0) return undefined;
    return this.#store
      .update(counter, now, (current) => {
        const used = (current?.value ?? 0) + rest;
        return { next: { value: used, expiresAt: period.end }, result: used };
      })
      .then((used) => {
        this.#block(counter).used = used;
      });
  }

  /** Gives back `tokens` admitted but not used, to this process's block of the current period. */
  giveBack(subject: string, budget: TokenBudget, tokens: number, now: number): void {
    if (tokens <= 0) return;
    this.#block(this.#current(subject, budget, now).counter).units += tokens;
  }

  /** The budget's state as this process knows it, without a round trip. */
  status(subject: string, budget: TokenBudget, now: number): Omit<BudgetCheck, 'allowed'> {
    const { period, counter } = this.#current(subject, budget, now);
    return this.#status(this.#block(counter), budget, period, now);
  }

  /** Forgets the blocks of periods that ended before `now`. */
  forgetEnded(now: number): void {
    for (const counter of this.#local.keys()) {
      const end = Number(counter.slice(counter.lastIndexOf('@') + 1).split('-')[1]);
      if (end <= now) this.#local.delete(counter);
    }
    for (const [subject, current] of this.#periods) if (current.period.end <= now) this.#periods.delete(subject);
  }

  /** The period of `subject`'s budget holding `now`, and its counter (computed when `now` leaves the last one seen). */
  #current(subject: string, budget: TokenBudget, now: number): CurrentPeriod {
    let current = this.#periods.get(subject);
    if (current === undefined || current.kind !== budget.period || now < current.period.start || now >= current.period.end) {
      const period = periodBounds(now, budget.period);
      current = { kind: budget.period, period, counter: counterName(subject, period) };
      this.#periods.set(subject, current);
    }
    return current;
  }

  #status(local: LocalBlock, budget: TokenBudget, period: PeriodBounds, now: number): Omit<BudgetCheck, 'allowed'> {
    return { remaining: Math.max(0, budget.tokens - local.used + local.units), resetMs: period.end - now };
  }

  #block(counter: string): LocalBlock {
    let local = this.#local.get(counter);
    if (local === undefined) {
      local = { units: 0, used: 0 };
      this.#local.set(counter, local);
    }
    return local;
  }
}

/** The counter of one subject's budget in one period. */
const counterName = (subject: string, period: PeriodBounds): string => `${subject}@${period.start}-${period.end}`;
