/**
 * How many tokens a model call is assumed to take before its `usage` is known, pure. A call (streamed
 * or not) is admitted against the tokens-per-minute limits and budgets by this estimate; when the
 * answer's `usage` arrives (or, without one, a count of the text produced) the limiter settles the
 * difference (`UsageLimiter.settle`).
 *
 * The estimate: the prompt's characters / 4 (OpenAI's rule of thumb for English), plus 4 tokens per
 * chat message and 3 for the reply's priming, plus the completion allowance: `max_completion_tokens`
 * or `max_tokens` when given, else `defaultCompletionTokens`, times `n`. Embeddings have no completion.
 */

/** Which model operation a body belongs to. */
export type ModelOperation = 'chat' | 'completion' | 'embedding';

/** Options of {@link admissionEstimate}. */
export interface AdmissionEstimateOptions {
  /** Completion tokens assumed when the request sets no `max_tokens`. @default 256 */
  defaultCompletionTokens?: number;
}

/** The estimate of one call. */
export interface TokenEstimate {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

const CHARACTERS_PER_TOKEN = 4;
const TOKENS_PER_MESSAGE = 4;
const REPLY_PRIMING_TOKENS = 3;

/** Tokens of a piece of text: characters (code points) / 4, rounded up. */
export const textTokens = (text: string): number => Math.ceil([...text].length / CHARACTERS_PER_TOKEN);

/** Tokens of a prompt-like value: text, text parts, or token ids (counted one each). */
function valueTokens(value: unknown): number {
  if (typeof value === 'string') return textTokens(value);
  if (typeof value === 'number') return 1;
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + valueTokens(item), 0);
  if (value !== null && typeof value === 'object') {
    const part = value as Record<string, unknown>;
    if (typeof part['text'] === 'string') return textTokens(part['text']);
    if (typeof part['content'] === 'string' || Array.isArray(part['content'])) return valueTokens(part['content']);
  }
  return 0;
}

/** Prompt tokens of a request body. */
export function estimatePromptTokens(body: unknown, operation: ModelOperation): number {
  const request = (body ?? {}) as Record<string, unknown>;
  if (operation === 'chat') {
    const messages = Array.isArray(request['messages']) ? request['messages'] : [];
    return messages.reduce<number>((sum, message) => sum + TOKENS_PER_MESSAGE + valueTokens((message as Record<string, unknown> | null)?.['content']), REPLY_PRIMING_TOKENS);
  }
  return valueTokens(operation === 'completion' ? request['prompt'] : request['input']);
}

/** The completion allowance of a request body (0 for embeddings). */
export function completionAllowance(body: unknown, operation: ModelOperation, options: AdmissionEstimateOptions = {}): number {
  if (operation === 'embedding') return 0;
  const request = (body ?? {}) as Record<string, unknown>;
  const asked = [request['max_completion_tokens'], request['max_tokens']].find((value): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0);
  const choices = typeof request['n'] === 'number' && Number.isInteger(request['n']) && request['n'] > 0 ? request['n'] : 1;
  return Math.ceil(asked ?? options.defaultCompletionTokens ?? 256) * choices;
}

/** The tokens a call is admitted with. */
export function admissionEstimate(body: unknown, operation: ModelOperation, options: AdmissionEstimateOptions = {}): TokenEstimate {
  const promptTokens = estimatePromptTokens(body, operation);
  const completionTokens = completionAllowance(body, operation, options);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}
