/**
 * Usage limits as svc holds them (issue 17): per minute rates, a concurrency cap, a token budget per
 * UTC day or month, and per-model rates, on a key, on a user and as the server-wide default for new
 * keys. Converts from and to the contract's `UsageLimits` (snake_case JSON, also what migration 030
 * stores), and checks that a key's limits stay within its owner's.
 */
import type { BudgetPeriod } from './budget-period.js';

/** Per-model rates of a key. */
export interface ModelLimit {
  model: string;
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
}

/** A token budget: at most `tokens` prompt + completion tokens per UTC day or month. */
export interface TokenBudget {
  tokens: number;
  period: BudgetPeriod;
}

/** Every limit; null (or an empty list) means no limit. */
export interface UsageLimits {
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  maxConcurrentRequests: number | null;
  tokenBudget: TokenBudget | null;
  models: ModelLimit[];
}

/** The contract's `UsageLimits` (every field optional, null meaning "no limit"). */
export interface UsageLimitsWire {
  requests_per_minute?: number | null;
  tokens_per_minute?: number | null;
  max_concurrent_requests?: number | null;
  token_budget?: { tokens: number; period: BudgetPeriod } | null;
  models?: Array<{ model: string; requests_per_minute?: number | null; tokens_per_minute?: number | null }>;
}

/** No limit at all. */
export const noLimits: UsageLimits = Object.freeze({ requestsPerMinute: null, tokensPerMinute: null, maxConcurrentRequests: null, tokenBudget: null, models: [] });

/** True when nothing is limited. */
export const isUnlimited = (limits: UsageLimits): boolean =>
  limits.requestsPerMinute === null && limits.tokensPerMinute === null && limits.maxConcurrentRequests === null && limits.tokenBudget === null && limits.models.length === 0;

/** The limits a (contract-validated) wire value describes; a later model entry of one name replaces an earlier one. */
export function limitsFromWire(wire: UsageLimitsWire | null | undefined): UsageLimits {
  if (wire === null || wire === undefined) return noLimits;
  const models = new Map<string, ModelLimit>();
  for (const entry of wire.models ?? []) {
    models.set(entry.model, { model: entry.model, requestsPerMinute: entry.requests_per_minute ?? null, tokensPerMinute: entry.tokens_per_minute ?? null });
  }
  return {
    requestsPerMinute: wire.requests_per_minute ?? null,
    tokensPerMinute: wire.tokens_per_minute ?? null,
    maxConcurrentRequests: wire.max_concurrent_requests ?? null,
    tokenBudget: wire.token_budget === null || wire.token_budget === undefined ? null : { tokens: wire.token_budget.tokens, period: wire.token_budget.period },
    models: [...models.values()],
  };
}

/** The wire form of `limits`, every field present (null: no limit), as get and list answer it. */
export function limitsToWire(limits: UsageLimits): Required<UsageLimitsWire> {
  return {
    requests_per_minute: limits.requestsPerMinute,
    tokens_per_minute: limits.tokensPerMinute,
    max_concurrent_requests: limits.maxConcurrentRequests,
    token_budget: limits.tokenBudget === null ? null : { tokens: limits.tokenBudget.tokens, period: limits.tokenBudget.period },
    models: limits.models.map((entry) => ({ model: entry.model, requests_per_minute: entry.requestsPerMinute, tokens_per_minute: entry.tokensPerMinute })),
  };
}

/** The stored JSON (migration 030's `limits` columns) of `limits`, or null when nothing is limited. */
export const storedLimits = (limits: UsageLimits): string | null => (isUnlimited(limits) ? null : JSON.stringify(limitsToWire(limits)));

/** The limits of a stored `limits` column (null or unreadable: none). */
export function loadLimits(json: string | null): UsageLimits {
  if (json === null) return noLimits;
  try {
    return limitsFromWire(JSON.parse(json) as UsageLimitsWire);
  } catch {
    return noLimits;
  }
}

/** `key`'s value above `owner`'s, when both are set. */
const above = (key: number | null, owner: number | null): boolean => key !== null && owner !== null && key > owner;

/**
 * The fields (contract names) where a key's limits exceed its owner's; empty when they fit. Only
 * limits set on both are compared: a key without a limit is still held to its owner's, which apply
 * to every call of the owner. A per-model rate may not exceed the owner's overall rate, and a daily
 * budget not the owner's monthly one.
 */
export function limitsAboveOwner(key: UsageLimits, owner: UsageLimits): string[] {
  const fields: string[] = [];
  if (above(key.requestsPerMinute, owner.requestsPerMinute)) fields.push('requests_per_minute');
  if (above(key.tokensPerMinute, owner.tokensPerMinute)) fields.push('tokens_per_minute');
  if (above(key.maxConcurrentRequests, owner.maxConcurrentRequests)) fields.push('max_concurrent_requests');
  const budget = key.tokenBudget;
  const ownerBudget = owner.tokenBudget;
  if (budget !== null && ownerBudget !== null && !(budget.period === 'month' && ownerBudget.period === 'day') && budget.tokens > ownerBudget.tokens) {
    fields.push('token_budget.tokens');
  }
  for (const entry of key.models) {
    const ownerModel = owner.models.find((candidate) => candidate.model === entry.model);
    if (above(entry.requestsPerMinute, ownerModel?.requestsPerMinute ?? owner.requestsPerMinute)) fields.push(`models[${entry.model}].requests_per_minute`);
    if (above(entry.tokensPerMinute, ownerModel?.tokensPerMinute ?? owner.tokensPerMinute)) fields.push(`models[${entry.model}].tokens_per_minute`);
  }
  return fields;
}
