/**
 * Usage limits (`UsageLimits` of the contract) as the limits form edits them, and back: every
 * number optional (empty means no limit), a token budget per UTC day or month, per-model rates.
 * The checks mirror the contract's bounds, so the form explains a value the server would refuse;
 * the server's own rules (a key's limits never above its owner's) come back as its 400, in words.
 */
import type { UsageLimits } from '@svc/sdk';

/** A number field's value as Mantine's NumberInput holds it: a number, or '' when empty. */
export type NumberField = number | string;

/** One model's per-minute limits, as edited. */
export interface ModelLimitDraft {
  model: string;
  requestsPerMinute: NumberField;
  tokensPerMinute: NumberField;
}

/** The limits form's values. */
export interface LimitsDraft {
  requestsPerMinute: NumberField;
  tokensPerMinute: NumberField;
  maxConcurrentRequests: NumberField;
  budgetTokens: NumberField;
  budgetPeriod: 'day' | 'month';
  models: ModelLimitDraft[];
}

/** The contract's bounds. */
const MAX_RATE = 1_000_000_000_000;
const MAX_CONCURRENT = 100_000;
const MAX_BUDGET = 1_000_000_000_000_000;
const MAX_MODELS = 64;
const MAX_MODEL_NAME = 256;

/** An empty per-model row. */
export const emptyModelLimit: ModelLimitDraft = { model: '', requestsPerMinute: '', tokensPerMinute: '' };

const field = (value: number | null | undefined): NumberField => (value === null || value === undefined ? '' : value);

/** The form's values for `limits` (none: every field empty). */
export function draftOf(limits: UsageLimits | null | undefined): LimitsDraft {
  return {
    requestsPerMinute: field(limits?.requests_per_minute),
    tokensPerMinute: field(limits?.tokens_per_minute),
    maxConcurrentRequests: field(limits?.max_concurrent_requests),
    budgetTokens: field(limits?.token_budget?.tokens),
    budgetPeriod: limits?.token_budget?.period ?? 'month',
    models: (limits?.models ?? []).map((entry) => ({ model: entry.model, requestsPerMinute: field(entry.requests_per_minute), tokensPerMinute: field(entry.tokens_per_minute) })),
  };
}

const valueOf = (value: NumberField): number | null => (value === '' || value === null ? null : Number(value));

/** The `UsageLimits` of a checked draft: only the limits set. */
export function limitsOf(draft: LimitsDraft): UsageLimits {
  const limits: UsageLimits = {};
  const rpm = valueOf(draft.requestsPerMinute);
  const tpm = valueOf(draft.tokensPerMinute);
  const concurrent = valueOf(draft.maxConcurrentRequests);
  const budget = valueOf(draft.budgetTokens);
  if (rpm !== null) limits.requests_per_minute = rpm;
  if (tpm !== null) limits.tokens_per_minute = tpm;
  if (concurrent !== null) limits.max_concurrent_requests = concurrent;
  if (budget !== null) limits.token_budget = { tokens: budget, period: draft.budgetPeriod };
  const models = draft.models
    .filter((entry) => entry.model.trim() !== '')
    .map((entry) => {
      const modelRpm = valueOf(entry.requestsPerMinute);
      const modelTpm = valueOf(entry.tokensPerMinute);
      return { model: entry.model.trim(), ...(modelRpm === null ? {} : { requests_per_minute: modelRpm }), ...(modelTpm === null ? {} : { tokens_per_minute: modelTpm }) };
    });
  if (models.length > 0) limits.models = models;
  return limits;
}

/** Why a number field cannot be sent, or null. */
function numberProblem(value: NumberField, maximum: number): string | null {
  const number = valueOf(value);
  if (number === null) return null;
  if (!Number.isInteger(number) || number < 1) return 'A whole number of at least 1 (empty: no limit)';
  if (number > maximum) return `At most ${maximum.toLocaleString()}`;
  return null;
}

/**
 * The form's field errors, keyed as `useForm` names its fields (`requestsPerMinute`,
 * `models.0.model`); empty when the draft can be sent.
 */
export function limitsProblems(draft: LimitsDraft): Record<string, string> {
  const problems: Record<string, string> = {};
  const check = (path: string, problem: string | null) => {
    if (problem !== null) problems[path] = problem;
  };
  check('requestsPerMinute', numberProblem(draft.requestsPerMinute, MAX_RATE));
  check('tokensPerMinute', numberProblem(draft.tokensPerMinute, MAX_RATE));
  check('maxConcurrentRequests', numberProblem(draft.maxConcurrentRequests, MAX_CONCURRENT));
  check('budgetTokens', numberProblem(draft.budgetTokens, MAX_BUDGET));
  if (draft.models.length > MAX_MODELS) check('models', `At most ${MAX_MODELS} models`);
  const seen = new Set<string>();
  draft.models.forEach((entry, index) => {
    const name = entry.model.trim();
    if (name === '') check(`models.${index}.model`, 'Name the model, or remove this row');
    else if (name.length > MAX_MODEL_NAME) check(`models.${index}.model`, `At most ${MAX_MODEL_NAME} characters`);
    else if (seen.has(name)) check(`models.${index}.model`, 'This model already has a row');
    seen.add(name);
    check(`models.${index}.requestsPerMinute`, numberProblem(entry.requestsPerMinute, MAX_RATE));
    check(`models.${index}.tokensPerMinute`, numberProblem(entry.tokensPerMinute, MAX_RATE));
    if (name !== '' && valueOf(entry.requestsPerMinute) === null && valueOf(entry.tokensPerMinute) === null) {
      check(`models.${index}.requestsPerMinute`, 'Set requests or tokens per minute for this model');
    }
  });
  return problems;
}

const count = (value: number) => value.toLocaleString();

/**
 * The limits in words, one short phrase each: `60 requests/min`, `100,000 tokens/min`,
 * `4 at once`, `5,000,000 tokens/month`, `echo: 10 requests/min`. Empty when nothing is limited.
 */
export function describeLimits(limits: UsageLimits | null | undefined): string[] {
  if (limits === null || limits === undefined) return [];
  const parts: string[] = [];
  if (typeof limits.requests_per_minute === 'number') parts.push(`${count(limits.requests_per_minute)} requests/min`);
  if (typeof limits.tokens_per_minute === 'number') parts.push(`${count(limits.tokens_per_minute)} tokens/min`);
  if (typeof limits.max_concurrent_requests === 'number') parts.push(`${count(limits.max_concurrent_requests)} at once`);
  if (limits.token_budget !== null && limits.token_budget !== undefined) parts.push(`${count(limits.token_budget.tokens)} tokens/${limits.token_budget.period}`);
  for (const entry of limits.models ?? []) {
    const rates = [
      typeof entry.requests_per_minute === 'number' ? `${count(entry.requests_per_minute)} requests/min` : null,
      typeof entry.tokens_per_minute === 'number' ? `${count(entry.tokens_per_minute)} tokens/min` : null,
    ].filter((rate) => rate !== null);
    parts.push(`${entry.model}: ${rates.join(', ')}`);
  }
  return parts;
}
