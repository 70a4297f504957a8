/**
 * The usage limiter: admits or refuses one model call against every limit that applies to it (the
 * key's, the key's for that model, the user's), holds what it admitted, and settles it when the
 * call's real token count is known. Pure of I/O except through the {@link LimitCounterStore} it is
 * given; time comes from the injected {@link Clock}.
 */
import type { Clock } from '../runtime/clock.js';
import type { LimitCounterStore } from '../storage/port/usage.js';
import { BudgetLeases } from './budget-leases.js';
import { ConcurrencyGate, type ConcurrencyGateOptions } from './concurrency-gate.js';
import type { LeaseOptions } from './lease-options.js';
import { LimitPlans, type CallPlan, type LimitScope, type RateCheck } from './limit-plans.js';
import { isTighter, RateLimitHeaderWriter, retryAfterHeaders, type LimitState } from './rate-limit-headers.js';
import { RateLeases } from './rate-leases.js';

export type { LimitScope } from './limit-plans.js';

/** One call to admit. */
export interface AdmissionRequest {
  model: string;
  /** The key's scope and the user's, as they apply. */
  scopes: readonly LimitScope[];
  /** The tokens the call is assumed to take (`stream-admission.ts`). */
  estimatedTokens: number;
}

/** What an admitted call holds until {@link UsageLimiter.settle}. */
export interface AdmissionTicket {
  readonly model: string;
  readonly scopes: readonly LimitScope[];
  /** The limits the call passed (the per-minute ones give the headers after it). */
  readonly plan: CallPlan;
  /** The tokens the call was charged at admission: on each token limit, this or the whole limit when less; on each budget, this. */
  readonly estimatedTokens: number;
  readonly slots: readonly string[];
}

/** The answer of {@link UsageLimiter.admit}. */
export type Admission =
  | { admitted: true; ticket: AdmissionTicket; headers: Record<string, string> }
  | { admitted: false; code: 'rate_limit_exceeded' | 'budget_exceeded'; message: string; retryAfterMs: number; headers: Record<string, string> };

/** What a call is charged on a per-minute limit at admission (a request; its estimate, at most the whole limit). */
const admissionCost = (check: RateCheck, estimatedTokens: number): number => (check.dimension === 'requests' ? 1 : Math.min(estimatedTokens, check.rate.limit));

/** How far an admission got before a limit refused it: what to give back. */
interface Progress {
  /** The rate checks passed (the first `ratesTaken` of the plan's). */
  ratesTaken: number;
  /** The budgets taken (the first `budgetsTaken` of the plan's). */
  budgetsTaken: number;
  slots: readonly string[];
}

/** An admission whose rate-limit headers are computed when first read. */
class AdmittedCall {
  readonly admitted = true;
  readonly ticket: AdmissionTicket;
  #headers: Record<string, string> | undefined;
  readonly #limiter: UsageLimiter;
  readonly #now: number;

  constructor(ticket: AdmissionTicket, limiter: UsageLimiter, now: number) {
    this.ticket = ticket;
    this.#limiter = limiter;
    this.#now = now;
  }

  get headers(): Record<string, string> {
    return (this.#headers ??= this.#limiter.headersOf(this.ticket.plan.rateChecks, this.#now));
  }
}

/** No concurrency slots (shared by every call that takes none). */
const NO_SLOTS: readonly string[] = Object.freeze([]);

/** How long a caller refused for concurrency is told to wait: a slot frees when some call ends. */
const CONCURRENCY_RETRY_MS = 1000;

/** Limits of one process, sharing counters with every other process through the store. */
export class UsageLimiter {
  readonly #clock: Clock;
  readonly #rates: RateLeases;
  readonly #budgets: BudgetLeases;
  readonly #gate: ConcurrencyGate;
  readonly #plans = new LimitPlans();
  readonly #writer = new RateLimitHeaderWriter();
  /** Scratch states of {@link headersOf} (synchronous: never shared by two calls at once). */
  readonly #reading: LimitState = { limit: 0, remaining: 0, resetMs: 0 };
  readonly #tightestRequests: LimitState = { limit: 0, remaining: 0, resetMs: 0 };
  readonly #tightestTokens: LimitState = { limit: 0, remaining: 0, resetMs: 0 };

  constructor(store: LimitCounterStore, clock: Clock, options: LeaseOptions & ConcurrencyGateOptions = {}) {
    this.#clock = clock;
    const { slotTtlMs, slotLeaseFraction, ...leases } = options;
    this.#rates = new RateLeases(store, leases);
    this.#budgets = new BudgetLeases(store, leases);
    this.#gate = new ConcurrencyGate(store, { ...(slotTtlMs === undefined ? {} : { slotTtlMs }), ...(slotLeaseFraction === undefined ? {} : { slotLeaseFraction }) });
  }

  /**
   * Admits the call when every limit allows it, taking one request and the estimated tokens from
   * each rate and budget and a concurrency slot; otherwise takes nothing and answers the refusal of
   * the first limit that refused. A call estimated above a whole per-minute token limit is charged
   * the whole limit (admitted only when that limit is full) and the rest when it settles.
   *
   * A call under its limits is admitted from this process's leased blocks without a round trip or
   * an awaited promise (`takeLocal`); only an empty block waits for a lease. An admission's
   * `headers` are computed when first read (a JSON answer reads the settlement's instead).
   */
  async admit(request: AdmissionRequest): Promise<Admission> {
    const now = this.#clock.now();
    const plan = this.#plans.callPlan(request.scopes, request.model);
    const checks = plan.rateChecks;
    const estimated = Math.max(0, Math.ceil(request.estimatedTokens));
    let prefetched = false;
    for (let index = 0; index < checks.length; index += 1) {
      const check = checks[index] as RateCheck;
      const cost = admissionCost(check, estimated);
      if (cost === 0 || this.#rates.takeLocal(check.subject, cost, now)) continue;
      if (!prefetched) {
        // The first block this call finds empty: lease it with the other limits' that are too, in one store call.
        prefetched = true;
        await this.#rates.prefetch(
          checks.slice(index).map((each) => ({ subject: each.subject, rate: each.rate, cost: admissionCost(each, estimated) })),
          now,
        );
      }
      const result = await this.#rates.take(check.subject, check.rate, cost, now);
      if (!result.allowed) {
        return this.#refuse(plan, estimated, { ratesTaken: index, budgetsTaken: 0, slots: NO_SLOTS }, now, {
          code: 'rate_limit_exceeded',
          message: `Rate limit reached: ${check.describe} is ${check.rate.limit}. Retry after the time in Retry-After.`,
          retryAfterMs: result.retryAfterMs,
        });
      }
    }
    for (let index = 0; index < plan.budgets.length; index += 1) {
      const scope = plan.budgets[index] as CallPlan['budgets'][number];
      const { subject, budget } = scope.budget;
      if (this.#budgets.takeLocal(subject, budget, estimated, now)) continue;
      const result = await this.#budgets.take(subject, budget, estimated, now);
      if (!result.allowed) {
        return this.#refuse(plan, estimated, { ratesTaken: checks.length, budgetsTaken: index, slots: NO_SLOTS }, now, {
          code: 'budget_exceeded',
          message: `Token budget exhausted: ${scope.name} may use ${budget.tokens} tokens per ${budget.period} (UTC); it starts again at the next ${budget.period}.`,
          retryAfterMs: result.resetMs,
        });
      }
    }
    let slots = NO_SLOTS;
    for (const scope of plan.caps) {
      const cap = scope.concurrency;
      if (!(await this.#gate.acquire(cap.subject, cap.limit, now))) {
        return this.#refuse(plan, estimated, { ratesTaken: checks.length, budgetsTaken: plan.budgets.length, slots }, now, {
          code: 'rate_limit_exceeded',
          message: `Concurrency limit reached: ${scope.name} may have ${cap.limit} requests in flight.`,
          retryAfterMs: CONCURRENCY_RETRY_MS,
        });
      }
      slots = [...slots, cap.subject];
    }
    const ticket: AdmissionTicket = { model: request.model, scopes: request.scopes, plan, estimatedTokens: estimated, slots };
    return new AdmittedCall(ticket, this, now);
  }

  /**
   * Ends an admitted call: charges the tokens it used beyond its estimate (or gives back the ones it
   * did not use) and frees its concurrency slots. Answers the rate-limit headers after it. Within
   * this process's live blocks this takes no round trip.
   */
  async settle(ticket: AdmissionTicket, usedTokens: number): Promise<Record<string, string>> {
    const now = this.#clock.now();
    const used = Math.max(0, Math.ceil(usedTokens));
    const { plan, estimatedTokens: estimated } = ticket;
    for (const check of plan.rateChecks) {
      if (check.dimension === 'requests') continue;
      const cost = admissionCost(check, estimated);
      if (cost === 0) continue;
      const difference = used - cost;
      const written = difference > 0 ? this.#rates.charge(check.subject, check.rate, difference, now) : this.#rates.giveBack(check.subject, check.rate, -difference, now);
      if (written !== undefined) await written;
    }
    const difference = used - estimated;
    for (const { budget } of plan.budgets) {
      if (difference > 0) {
        const written = this.#budgets.charge(budget.subject, budget.budget, difference, now);
        if (written !== undefined) await written;
      } else {
        this.#budgets.giveBack(budget.subject, budget.budget, -difference, now);
      }
    }
    for (const subject of ticket.slots) await this.#gate.release(subject);
    return this.headersOf(plan.rateChecks, now);
  }

  /** The rate-limit headers for a call of `model` under `scopes`, as this process knows them now. */
  headers(scopes: readonly LimitScope[], model: string): Record<string, string> {
    return this.headersOf(this.#plans.rateChecks(scopes, model), this.#clock.now());
  }

  /** Forgets per-process state that no longer limits anything (call now and then). */
  forgetIdle(): void {
    const now = this.#clock.now();
    this.#rates.forgetIdle(now);
    this.#budgets.forgetEnded(now);
  }

  /** Gives back what a refused call had taken (`progress`) and answers the refusal. */
  async #refuse(
    plan: CallPlan,
    estimated: number,
    progress: Progress,
    now: number,
    refusal: { code: 'rate_limit_exceeded' | 'budget_exceeded'; message: string; retryAfterMs: number },
  ): Promise<Admission> {
    for (let index = 0; index < progress.ratesTaken; index += 1) {
      const check = plan.rateChecks[index] as RateCheck;
      const written = this.#rates.giveBack(check.subject, check.rate, admissionCost(check, estimated), now);
      if (written !== undefined) await written;
    }
    for (let index = 0; index < progress.budgetsTaken; index += 1) {
      const { budget } = plan.budgets[index] as CallPlan['budgets'][number];
      this.#budgets.giveBack(budget.subject, budget.budget, estimated, now);
    }
    for (const subject of progress.slots) await this.#gate.release(subject);
    return { admitted: false, ...refusal, headers: { ...this.headersOf(plan.rateChecks, now), ...retryAfterHeaders(refusal.retryAfterMs) } };
  }

  /**
   * The headers of the tightest limit of each dimension among `checks` at `now` ({@link isTighter}),
   * read into two states this limiter reuses: no object per limit per call. {@link AdmittedCall}
   * reads an admission's through this when its headers are first read.
   */
  headersOf(checks: readonly RateCheck[], now: number): Record<string, string> {
    const reading = this.#reading;
    let requests: LimitState | null = null;
    let tokens: LimitState | null = null;
    for (const check of checks) {
      this.#rates.readStatus(check.subject, check.rate, now, reading);
      if (check.dimension === 'requests') {
        if (requests === null || isTighter(reading, requests)) requests = copyState(reading, this.#tightestRequests);
      } else if (tokens === null || isTighter(reading, tokens)) {
        tokens = copyState(reading, this.#tightestTokens);
      }
    }
    return this.#writer.headers(requests, tokens);
  }
}

/** `from` copied into `into` (answered). */
function copyState(from: LimitState, into: LimitState): LimitState {
  into.limit = from.limit;
  into.remaining = from.remaining;
  into.resetMs = from.resetMs;
  return into;
}
