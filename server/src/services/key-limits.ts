/**
 * The usage limits a key gets (issue 17): the ones its creator sends, else the server-wide default
 * for new keys; and the rule that a key's limits never exceed its owner's. Sent limits above the
 * owner's are refused (400 naming the field); the default, which nobody chose for this owner, is
 * lowered to the owner's instead (docs/limits.md, "Who may set a limit").
 */
import { ApiError } from '../errors.js';
import { limitsAboveOwner, limitsFromWire, type ModelLimit, type UsageLimits, type UsageLimitsWire } from '../limits/usage-limits.js';

/** `key` within `owner`: each limit set on both lowered to the owner's, as {@link limitsAboveOwner} compares them. */
export function limitsWithinOwner(key: UsageLimits, owner: UsageLimits): UsageLimits {
  const lower = (value: number | null, ceiling: number | null): number | null => (value !== null && ceiling !== null && value > ceiling ? ceiling : value);
  const budget = key.tokenBudget;
  const ownerBudget = owner.tokenBudget;
  const budgetAbove = budget !== null && ownerBudget !== null && !(budget.period === 'month' && ownerBudget.period === 'day') && budget.tokens > ownerBudget.tokens;
  return {
    requestsPerMinute: lower(key.requestsPerMinute, owner.requestsPerMinute),
    tokensPerMinute: lower(key.tokensPerMinute, owner.tokensPerMinute),
    maxConcurrentRequests: lower(key.maxConcurrentRequests, owner.maxConcurrentRequests),
    tokenBudget: budgetAbove ? { tokens: ownerBudget.tokens, period: budget.period } : budget,
    models: key.models.map((entry): ModelLimit => {
      const ownerModel = owner.models.find((candidate) => candidate.model === entry.model);
      return {
        model: entry.model,
        requestsPerMinute: lower(entry.requestsPerMinute, ownerModel?.requestsPerMinute ?? owner.requestsPerMinute),
        tokensPerMinute: lower(entry.tokensPerMinute, ownerModel?.tokensPerMinute ?? owner.tokensPerMinute),
      };
    }),
  };
}

/**
 * The limits sent for a key, checked against its owner's.
 *
 * @throws {ApiError} 400 `invalid_request` naming the first field above the owner's.
 */
export function keyLimitsWithinOwner(sent: UsageLimitsWire | null, owner: UsageLimits): UsageLimits {
  const limits = limitsFromWire(sent);
  const above = limitsAboveOwner(limits, owner);
  const first = above[0];
  if (first !== undefined) {
    throw new ApiError('invalid_request', `The key's limits may not exceed its owner's: ${above.join(', ')} ${above.length === 1 ? 'is' : 'are'} above the owner's limit`, {
      param: first,
    });
  }
  return limits;
}

/** The limits of a new key: the ones sent (`null` for none), else the default lowered to the owner's. */
export function newKeyLimits(sent: UsageLimitsWire | null | undefined, serverDefault: UsageLimits, owner: UsageLimits): UsageLimits {
  return sent === undefined ? limitsWithinOwner(serverDefault, owner) : keyLimitsWithinOwner(sent, owner);
}
