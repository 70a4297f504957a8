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
import { LimitPlans, scopeName, type LimitScope, type RateCheck } from './limit-plans.js';
import { rateLimitHeaders, retryAfterHeaders, tighter, type LimitState } from './rate-limit-headers.js';
import { RateLeases, type RateStatus } from './rate-leases.js';
import type { Rate } from './gcra.js';
import type { TokenBudget } from './usage-limits.js';

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
  /** The per-minute limits the call passed (for the headers after it). */
  readonly rateChecks: readonly RateCheck[];
  /** The token checks taken, with the cost each was charged. */
  readonly tokenCharges: readonly TokenCharge[];
  readonly slots: readonly string[];
}

/** The answer of {@link UsageLimiter.admit}. */
export type Admission =
  | { admitted: true; ticket: AdmissionTicket; headers: Record<string, string> }
  | { admitted: false; code: 'rate_limit_exceeded' | 'budget_exceeded'; message: string; retryAfterMs: number; headers: Record<string, string> };

type TokenCharge = { kind: 'rate'; subject: string; rate: Rate; cost: number } | { kind: 'budget'; subject: string; budget: TokenBudget; cost: number };

/** An admission whose rate-limit headers are computed when first read. */
class AdmittedCall {
  readonly admitted = true;
  readonly ticket: AdmissionTicket;
  #headers: Record<string, string> | undefined;
  readonly #compute: () => Record<string, string>;

  constructor(ticket: AdmissionTicket, compute: () => Record<string, string>) {
    this.ticket = ticket;
    this.#compute = compute;
  }

  get headers(): Record<string, string> {
    return (this.#headers ??= this.#compute());
  }
}

/** How long a caller refused for concurrency is told to wait: a slot frees when some call ends. */
const CONCURRENCY_RETRY_MS = 1000;

/** Limits of one process, sharing counters with every other process through the store. */
export class UsageLimiter {
  readonly #clock: Clock;
  readonly #rates: RateLeases;
  readonly #budgets: BudgetLeases;
  readonly #gate: ConcurrencyGate;
  readonly #plans = new LimitPlans();

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
    const checks = this.#plans.rateChecks(request.scopes, request.model);
    const taken: TokenCharge[] = [];
    const requestsTaken: RateCheck[] = [];
    const slots: string[] = [];
    const refuse = async (code: 'rate_limit_exceeded' | 'budget_exceeded', message: string, retryAfterMs: number): Promise<Admission> => {
      for (const check of requestsTaken) await this.#rates.giveBack(check.subject, check.rate, 1, now);
      await this.#undoTokens(taken, now);
      for (const subject of slots) await this.#gate.release(subject);
      return { admitted: false, code, message, retryAfterMs, headers: { ...this.#headers(checks, now), ...retryAfterHeaders(retryAfterMs) } };
    };

    const estimated = Math.max(0, Math.ceil(request.estimatedTokens));
    const costOf = (check: RateCheck) => (check.dimension === 'requests' ? 1 : Math.min(estimated, check.rate.limit));
    let prefetched = false;
    for (let index = 0; index < checks.length; index += 1) {
      const check = checks[index] as RateCheck;
      const cost = costOf(check);
      if (cost === 0) continue;
      if (!this.#rates.takeLocal(check.subject, cost, now)) {
        if (!prefetched) {
          // The first block this call finds empty: lease it with the other limits' that are too, in one store call.
          prefetched = true;
          await this.#rates.prefetch(
            checks.slice(index).map((each) => ({ subject: each.subject, rate: each.rate, cost: costOf(each) })),
            now,
          );
        }
        const result = await this.#rates.take(check.subject, check.rate, cost, now);
        if (!result.allowed) return refuse('rate_limit_exceeded', `Rate limit reached: ${check.describe} is ${check.rate.limit}. Retry after the time in Retry-After.`, result.retryAfterMs);
      }
      if (check.dimension === 'requests') requestsTaken.push(check);
      else taken.push({ kind: 'rate', subject: check.subject, rate: check.rate, cost });
    }
    for (const scope of request.scopes) {
      const budget = this.#plans.of(scope).budget;
      if (budget === null) continue;
      if (!this.#budgets.takeLocal(budget.subject, budget.budget, estimated, now)) {
        const result = await this.#budgets.take(budget.subject, budget.budget, estimated, now);
        if (!result.allowed) {
          return refuse(
            'budget_exceeded',
            `Token budget exhausted: ${scopeName(scope)} may use ${budget.budget.tokens} tokens per ${budget.budget.period} (UTC); it starts again at the next ${budget.budget.period}.`,
            result.resetMs,
          );
        }
      }
      taken.push({ kind: 'budget', subject: budget.subject, budget: budget.budget, cost: estimated });
    }
    for (const scope of request.scopes) {
      const cap = this.#plans.of(scope).concurrency;
      if (cap === null) continue;
      if (!(await this.#gate.acquire(cap.subject, cap.limit, now))) {
        return refuse('rate_limit_exceeded', `Concurrency limit reached: ${scopeName(scope)} may have ${cap.limit} requests in flight.`, CONCURRENCY_RETRY_MS);
      }
      slots.push(cap.subject);
    }
    const ticket: AdmissionTicket = { model: request.model, scopes: request.scopes, rateChecks: checks, tokenCharges: taken, slots };
    return new AdmittedCall(ticket, () => this.#headers(checks, now));
  }

  /**
   * Ends an admitted call: charges the tokens it used beyond its estimate (or gives back the ones it
   * did not use) and frees its concurrency slots. Answers the rate-limit headers after it. Within
   * this process's live blocks this takes no round trip.
   */
  async settle(ticket: AdmissionTicket, usedTokens: number): Promise<Record<string, string>> {
    const now = this.#clock.now();
    const used = Math.max(0, Math.ceil(usedTokens));
    for (const charge of ticket.tokenCharges) {
      const difference = used - charge.cost;
      if (charge.kind === 'rate') {
        const written = difference > 0 ? this.#rates.charge(charge.subject, charge.rate, difference, now) : this.#rates.giveBack(charge.subject, charge.rate, -difference, now);
        if (written !== undefined) await written;
      } else if (difference > 0) {
        const written = this.#budgets.charge(charge.subject, charge.budget, difference, now);
        if (written !== undefined) await written;
      } else {
        this.#budgets.giveBack(charge.subject, charge.budget, -difference, now);
      }
    }
    for (const subject of ticket.slots) await this.#gate.release(subject);
    return this.#headers(ticket.rateChecks, now);
  }

  /** The rate-limit headers for a call of `model` under `scopes`, as this process knows them now. */
  headers(scopes: readonly LimitScope[], model: string): Record<string, string> {
    return this.#headers(this.#plans.rateChecks(scopes, model), this.#clock.now());
  }

  /** Forgets per-process state that no longer limits anything (call now and then). */
  forgetIdle(): void {
    const now = this.#clock.now();
    this.#rates.forgetIdle(now);
    this.#budgets.forgetEnded(now);
  }

  async #undoTokens(taken: readonly TokenCharge[], now: number): Promise<void> {
    for (const charge of taken) {
      if (charge.kind === 'rate') await this.#rates.giveBack(charge.subject, charge.rate, charge.cost, now);
      else this.#budgets.giveBack(charge.subject, charge.budget, charge.cost, now);
    }
  }

  #headers(checks: readonly RateCheck[], now: number): Record<string, string> {
    let requests: LimitState | null = null;
    let tokens: LimitState | null = null;
    for (const check of checks) {
      const status: RateStatus = this.#rates.status(check.subject, check.rate, now);
      if (check.dimension === 'requests') requests = tighter(requests, status);
      else tokens = tighter(tokens, status);
    }
    return rateLimitHeaders({ requests, tokens });
  }
}
