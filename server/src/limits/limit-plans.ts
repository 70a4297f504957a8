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

/**
 * Everything a call of one model must pass under its scopes' limits, in order: the per-minute checks
 * (the key's, then the user's), the scopes with a token budget and those with a concurrency cap.
 * Compiled once per set of plans and model, so a call resolves its limits with one look-up.
 */
export interface CallPlan {
  readonly rateChecks: readonly RateCheck[];
  /** The scopes' plans that have a token budget, in scope order. */
  readonly budgets: readonly (ScopePlan & { readonly budget: BudgetCheck })[];
  /** The scopes' plans that have a concurrency cap, in scope order. */
  readonly caps: readonly (ScopePlan & { readonly concurrency: ConcurrencyCheck })[];
}

/** The plan of a call of `model` under `plans` (in scope order). */
function compileCallPlan(plans: readonly ScopePlan[], model: string): CallPlan {
  return Object.freeze({
    rateChecks: Object.freeze(plans.flatMap((plan) => plan.rateChecks(model))),
    budgets: Object.freeze(plans.filter((plan): plan is ScopePlan & { budget: BudgetCheck } => plan.budget !== null)),
    caps: Object.freeze(plans.filter((plan): plan is ScopePlan & { concurrency: ConcurrencyCheck } => plan.concurrency !== null)),
  });
}

const MINUTE_MS = 60_000;

/** The name of a scope in refusal messages. */
export const scopeName = (scope: Pick<LimitScope, 'kind' | 'id'>): string => (scope.kind === 'key' ? `API key ${scope.id}` : `user ${scope.id}`);

/** The compiled limits of one scope. */
export class ScopePlan {
  /** The scope's name in refusal messages (`API key …`, `user …`). */
  readonly name: string;
  readonly budget: BudgetCheck | null;
  readonly concurrency: ConcurrencyCheck | null;
  readonly #scope: LimitScope;
  /** The per-minute checks that apply to every model. */
  readonly #rates: readonly RateCheck[];
  /** The per-minute checks of models that have their own rates (bounded by the limits' `models`). */
  readonly #byModel = new Map<string, readonly RateCheck[]>();

  constructor(scope: LimitScope) {
    this.#scope = scope;
    this.name = scopeName(scope);
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
    return [{ subject: `${this.#scope.kind}:${this.#scope.id}:${suffix}`, rate: { limit, periodMs: MINUTE_MS }, dimension, describe: `${what} of ${this.name}` }];
  }
}

/** A scope without any limit. */
const unlimitedPlan = new ScopePlan({ kind: 'key', id: '', limits: { requestsPerMinute: null, tokensPerMinute: null, maxConcurrentRequests: null, tokenBudget: null, models: [] } });

/** The compiled plans of every scope this process has seen, by limits object. */
export class LimitPlans {
  readonly #plans = { key: new WeakMap<UsageLimits, Map<string, ScopePlan>>(), user: new WeakMap<UsageLimits, Map<string, ScopePlan>>() };
  /** Call plans by their scopes' plans and the model (models are the server's, a bounded set). */
  readonly #calls = new WeakMap<ScopePlan, WeakMap<ScopePlan, Map<string, CallPlan>>>();

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

  /** Every per-minute check of a call of `model` under `scopes`, in order (the key's, then the user's). */
  rateChecks(scopes: readonly LimitScope[], model: string): readonly RateCheck[] {
    return this.callPlan(scopes, model).rateChecks;
  }

  /**
   * What a call of `model` under `scopes` must pass. For one scope or two (a key and its user: every
   * model call) compiled once per plans and model, not on every call; dropped with the plans.
   */
  callPlan(scopes: readonly LimitScope[], model: string): CallPlan {
    if (scopes.length === 0) return this.#cached(unlimitedPlan, unlimitedPlan, model);
    const first = this.of(scopes[0] as LimitScope);
    if (scopes.length === 1) return this.#cached(first, unlimitedPlan, model);
    if (scopes.length === 2) return this.#cached(first, this.of(scopes[1] as LimitScope), model);
    return compileCallPlan(scopes.map((scope) => this.of(scope)), model);
  }

  #cached(first: ScopePlan, second: ScopePlan, model: string): CallPlan {
    let bySecond = this.#calls.get(first);
    if (bySecond === undefined) {
      bySecond = new WeakMap();
      this.#calls.set(first, bySecond);
    }
    let byModel = bySecond.get(second);
    if (byModel === undefined) {
      byModel = new Map();
      bySecond.set(second, byModel);
    }
    let plan = byModel.get(model);
    if (plan === undefined) {
      plan = compileCallPlan([first, second], model);
      byModel.set(model, plan);
    }
    return plan;
  }
}
