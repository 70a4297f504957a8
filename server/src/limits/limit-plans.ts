/**
 * The checks one caller's limits impose on a call, compiled once per limits object instead of once
 * per call: the counters' names, rates and messages of a key's or user's limits (and of their
 * per-model rates for one model). A key's and a user's records are cached until the `access` epoch
 * drops them, so their {@link UsageLimits} object is the same on every call, and a limits change
 * (a new record, a new object) compiles anew; the old plans go with the old object (a `WeakMap`).
 */
import type { Rate } from './gcra.js';
import { isUnlimited, type TokenBudget, type UsageLimits } from './usage-limits.js';

/** Whose limits: a key's or a user's. */
export interface LimitScope {
  kind: 'key' | 'user';
  id: string;
  limits: UsageLimits;
}

/** One per-minute limit a call must pass. */
export interface RateCheck {
  /** The shared counter's name (`key:<id>:rpm`, `user:<id>:model:<model>:tpm`, …). */
  subject: string;
  rate: Rate;
  dimension: 'requests' | 'tokens';
  /** What the limit is, for a refusal's message ("requests per minute of API key …"). */
  describe: string;
}

/** A token budget a call must pass. */
export interface BudgetCheck {
  /** The counter's name without its period (`key:<id>:budget:month`). */
  subject: string;
  budget: TokenBudget;
}

/** A concurrency cap a call must pass. */
export interface ConcurrencyCheck {
  /** The slots' name (`key:<id>:concurrent`). */
  subject: string;
  limit: number;
}

const MINUTE_MS = 60_000;

/** The name of a scope in refusal messages. */
export const scopeName = (scope: Pick<LimitScope, 'kind' | 'id'>): string => (scope.kind === 'key' ? `API key ${scope.id}` : `user ${scope.id}`);

/** The compiled limits of one scope. */
export class ScopePlan {
  readonly budget: BudgetCheck | null;
  readonly concurrency: ConcurrencyCheck | null;
  readonly #scope: LimitScope;
  /** The per-minute checks that apply to every model. */
  readonly #rates: readonly RateCheck[];
  /** The per-minute checks of models that have their own rates (bounded by the limits' `models`). */
  readonly #byModel = new Map<string, readonly RateCheck[]>();

  constructor(scope: LimitScope) {
    this.#scope = scope;
    const base = `${scope.kind}:${scope.id}`;
    const { limits } = scope;
    this.#rates = [
      ...this.#check('rpm', limits.requestsPerMinute, 'requests', 'requests per minute'),
      ...this.#check('tpm', limits.tokensPerMinute, 'tokens', 'tokens per minute'),
    ];
    this.budget = limits.tokenBudget === null ? null : { subject: `${base}:budget:${limits.tokenBudget.period}`, budget: limits.tokenBudget };
    this.concurrency = limits.maxConcurrentRequests === null ? null : { subject: `${base}:concurrent`, limit: limits.maxConcurrentRequests };
    for (const entry of limits.models) {
      this.#byModel.set(entry.model, [
        ...this.#rates,
        ...this.#check(`model:${entry.model}:rpm`, entry.requestsPerMinute, 'requests', `requests per minute on model ${entry.model}`),
        ...this.#check(`model:${entry.model}:tpm`, entry.tokensPerMinute, 'tokens', `tokens per minute on model ${entry.model}`),
      ]);
    }
  }

  /** The per-minute checks of a call of `model`: the scope's rates, then its rates for that model. */
  rateChecks(model: string): readonly RateCheck[] {
    return this.#byModel.get(model) ?? this.#rates;
  }

  #check(suffix: string, limit: number | null, dimension: RateCheck['dimension'], what: string): RateCheck[] {
    if (limit === null) return [];
    return [{ subject: `${this.#scope.kind}:${this.#scope.id}:${suffix}`, rate: { limit, periodMs: MINUTE_MS }, dimension, describe: `${what} of ${scopeName(this.#scope)}` }];
  }
}

/** A scope without any limit. */
const unlimitedPlan = new ScopePlan({ kind: 'key', id: '', limits: { requestsPerMinute: null, tokensPerMinute: null, maxConcurrentRequests: null, tokenBudget: null, models: [] } });

/** The compiled plans of every scope this process has seen, by limits object. */
export class LimitPlans {
  readonly #plans = { key: new WeakMap<UsageLimits, Map<string, ScopePlan>>(), user: new WeakMap<UsageLimits, Map<string, ScopePlan>>() };
  /** A key's and a user's checks joined, by the two plans and the model (models are the server's, a bounded set). */
  readonly #pairs = new WeakMap<ScopePlan, WeakMap<ScopePlan, Map<string, readonly RateCheck[]>>>();

  /** The plan of `scope` (compiled on its first call; scopes without limits share one empty plan). */
  of(scope: LimitScope): ScopePlan {
    if (isUnlimited(scope.limits)) return unlimitedPlan;
    let byId = this.#plans[scope.kind].get(scope.limits);
    if (byId === undefined) {
      byId = new Map();
      this.#plans[scope.kind].set(scope.limits, byId);
    }
    let plan = byId.get(scope.id);
    if (plan === undefined) {
      plan = new ScopePlan(scope);
      byId.set(scope.id, plan);
    }
    return plan;
  }

  /**
   * Every per-minute check of a call of `model` under `scopes`, in order (the key's, then the user's).
   * A key's and its user's checks are joined once per pair of plans and model, not on every call.
   */
  rateChecks(scopes: readonly LimitScope[], model: string): readonly RateCheck[] {
    if (scopes.length === 1) return this.of(scopes[0] as LimitScope).rateChecks(model);
    if (scopes.length === 2) return this.#joined(this.of(scopes[0] as LimitScope), this.of(scopes[1] as LimitScope), model);
    const checks: RateCheck[] = [];
    for (const scope of scopes) checks.push(...this.of(scope).rateChecks(model));
    return checks;
  }

  /** `first`'s checks of `model`, then `second`'s (compiled once; dropped with either plan). */
  #joined(first: ScopePlan, second: ScopePlan, model: string): readonly RateCheck[] {
    if (second === unlimitedPlan) return first.rateChecks(model);
    if (first === unlimitedPlan) return second.rateChecks(model);
    let bySecond = this.#pairs.get(first);
    if (bySecond === undefined) {
      bySecond = new WeakMap();
      this.#pairs.set(first, bySecond);
    }
    let byModel = bySecond.get(second);
    if (byModel === undefined) {
      byModel = new Map();
      bySecond.set(second, byModel);
    }
    let checks = byModel.get(model);
    if (checks === undefined) {
      checks = Object.freeze([...first.rateChecks(model), ...second.rateChecks(model)]);
      byModel.set(model, checks);
    }
    return checks;
  }
}
