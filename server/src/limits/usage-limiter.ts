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
import type { Rate } from './gcra.js';
import type { LeaseOptions } from './lease-options.js';
import { rateLimitHeaders, retryAfterHeaders, tighter, type LimitState } from './rate-limit-headers.js';
import { RateLeases, type RateStatus } from './rate-leases.js';
import type { TokenBudget, UsageLimits } from './usage-limits.js';

/** Whose limits: a key's or a user's. */
export interface LimitScope {
  kind: 'key' | 'user';
  id: string;
  limits: UsageLimits;
}

/** One call to admit. */
export interface AdmissionRequest {
  /** Unique per call across every process (the request id, a UUID): it holds the call's concurrency slots. */
  requestId: string;
  model: string;
  /** The key's scope and the user's, as they apply. */
  scopes: readonly LimitScope[];
  /** The tokens the call is assumed to take (`stream-admission.ts`). */
  estimatedTokens: number;
}

/** What an admitted call holds until {@link UsageLimiter.settle}. */
export interface AdmissionTicket {
  readonly requestId: string;
  readonly model: string;
  readonly scopes: readonly LimitScope[];
  /** The token checks taken, with the cost each was charged. */
  readonly tokenCharges: readonly TokenCharge[];
  readonly slots: readonly string[];
}

/** The answer of {@link UsageLimiter.admit}. */
export type Admission =
  | { admitted: true; ticket: AdmissionTicket; headers: Record<string, string> }
  | { admitted: false; code: 'rate_limit_exceeded' | 'budget_exceeded'; message: string; retryAfterMs: number; headers: Record<string, string> };

type TokenCharge = { kind: 'rate'; subject: string; rate: Rate; cost: number } | { kind: 'budget'; subject: string; budget: TokenBudget; cost: number };

interface RateCheck {
  subject: string;
  rate: Rate;
  dimension: 'requests' | 'tokens';
  describe: string;
}

const MINUTE_MS = 60_000;
/** How long a caller refused for concurrency is told to wait: a slot frees when some call ends. */
const CONCURRENCY_RETRY_MS = 1000;

const scopeName = (scope: LimitScope): string => (scope.kind === 'key' ? `API key ${scope.id}` : `user ${scope.id}`);

/** The per-minute checks of `scopes` for `model`. */
function rateChecks(scopes: readonly LimitScope[], model: string): RateCheck[] {
  const checks: RateCheck[] = [];
  for (const scope of scopes) {
    const base = `${scope.kind}:${scope.id}`;
    const add = (suffix: string, limit: number | null, dimension: RateCheck['dimension'], what: string) => {
      if (limit !== null) checks.push({ subject: `${base}:${suffix}`, rate: { limit, periodMs: MINUTE_MS }, dimension, describe: `${what} of ${scopeName(scope)}` });
    };
    add('rpm', scope.limits.requestsPerMinute, 'requests', 'requests per minute');
    add('tpm', scope.limits.tokensPerMinute, 'tokens', 'tokens per minute');
    const perModel = scope.limits.models.find((entry) => entry.model === model);
    if (perModel !== undefined) {
      add(`model:${model}:rpm`, perModel.requestsPerMinute, 'requests', `requests per minute on model ${model}`);
      add(`model:${model}:tpm`, perModel.tokensPerMinute, 'tokens', `tokens per minute on model ${model}`);
    }
  }
  return checks;
}

/** Limits of one process, sharing counters with every other process through the store. */
export class UsageLimiter {
  readonly #clock: Clock;
  readonly #rates: RateLeases;
  readonly #budgets: BudgetLeases;
  readonly #gate: ConcurrencyGate;

  constructor(store: LimitCounterStore, clock: Clock, options: LeaseOptions & ConcurrencyGateOptions = {}) {
    this.#clock = clock;
    const { slotTtlMs, ...leases } = options;
    this.#rates = new RateLeases(store, leases);
    this.#budgets = new BudgetLeases(store, leases);
    this.#gate = new ConcurrencyGate(store, slotTtlMs === undefined ? {} : { slotTtlMs });
  }

  /**
   * Admits the call when every limit allows it, taking one request and the estimated tokens from
   * each rate and budget and a concurrency slot; otherwise takes nothing and answers the refusal of
   * the first limit that refused. A call estimated above a whole per-minute token limit is charged
   * the whole limit (admitted only when that limit is full) and the rest when it settles.
   */
  async admit(request: AdmissionRequest): Promise<Admission> {
    const now = this.#clock.now();
    const checks = rateChecks(request.scopes, request.model);
    const taken: TokenCharge[] = [];
    const requestsTaken: RateCheck[] = [];
    const slots: string[] = [];
    const undo = async (): Promise<void> => {
      for (const check of requestsTaken) await this.#rates.giveBack(check.subject, check.rate, 1, now);
      await this.#undoTokens(taken, now);
      for (const subject of slots) await this.#gate.release(subject, request.requestId);
    };
    const refuse = async (code: 'rate_limit_exceeded' | 'budget_exceeded', message: string, retryAfterMs: number): Promise<Admission> => {
      await undo();
      return { admitted: false, code, message, retryAfterMs, headers: { ...this.#headers(checks, now), ...retryAfterHeaders(retryAfterMs) } };
    };

    for (const check of checks) {
      const cost = check.dimension === 'requests' ? 1 : Math.min(Math.max(0, Math.ceil(request.estimatedTokens)), check.rate.limit);
      if (cost === 0) continue;
      const result = await this.#rates.take(check.subject, check.rate, cost, now);
      if (!result.allowed) return refuse('rate_limit_exceeded', `Rate limit reached: ${check.describe} is ${check.rate.limit}. Retry after the time in Retry-After.`, result.retryAfterMs);
      if (check.dimension === 'requests') requestsTaken.push(check);
      else taken.push({ kind: 'rate', subject: check.subject, rate: check.rate, cost });
    }
    for (const scope of request.scopes) {
      const budget = scope.limits.tokenBudget;
      if (budget === null) continue;
      const subject = `${scope.kind}:${scope.id}:budget:${budget.period}`;
      const cost = Math.max(0, Math.ceil(request.estimatedTokens));
      const result = await this.#budgets.take(subject, budget, cost, now);
      if (!result.allowed) {
        return refuse('budget_exceeded', `Token budget exhausted: ${scopeName(scope)} may use ${budget.tokens} tokens per ${budget.period} (UTC); it starts again at the next ${budget.period}.`, result.resetMs);
      }
      taken.push({ kind: 'budget', subject, budget, cost });
    }
    for (const scope of request.scopes) {
      const limit = scope.limits.maxConcurrentRequests;
      if (limit === null) continue;
      const subject = `${scope.kind}:${scope.id}:concurrent`;
      if (!(await this.#gate.acquire(subject, request.requestId, limit, now))) {
        return refuse('rate_limit_exceeded', `Concurrency limit reached: ${scopeName(scope)} may have ${limit} requests in flight.`, CONCURRENCY_RETRY_MS);
      }
      slots.push(subject);
    }
    const ticket: AdmissionTicket = { requestId: request.requestId, model: request.model, scopes: request.scopes, tokenCharges: taken, slots };
    return { admitted: true, ticket, headers: this.#headers(checks, now) };
  }

  /**
   * Ends an admitted call: charges the tokens it used beyond its estimate (or gives back the ones it
   * did not use) and frees its concurrency slots. Answers the rate-limit headers after it.
   */
  async settle(ticket: AdmissionTicket, usedTokens: number): Promise<Record<string, string>> {
    const now = this.#clock.now();
    const used = Math.max(0, Math.ceil(usedTokens));
    for (const charge of ticket.tokenCharges) {
      const difference = used - charge.cost;
      if (charge.kind === 'rate') {
        if (difference > 0) await this.#rates.charge(charge.subject, charge.rate, difference, now);
        else await this.#rates.giveBack(charge.subject, charge.rate, -difference, now);
      } else if (difference > 0) {
        await this.#budgets.charge(charge.subject, charge.budget, difference, now);
      } else {
        this.#budgets.giveBack(charge.subject, charge.budget, -difference, now);
      }
    }
    for (const subject of ticket.slots) await this.#gate.release(subject, ticket.requestId);
    return this.#headers(rateChecks(ticket.scopes, ticket.model), now);
  }

  /** The rate-limit headers for a call of `model` under `scopes`, as this process knows them now. */
  headers(scopes: readonly LimitScope[], model: string): Record<string, string> {
    return this.#headers(rateChecks(scopes, model), this.#clock.now());
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
