/**
 * The tokens a model call used, read from its answer, pure: the `usage` of a JSON answer, or of a
 * stream's chunks (the last chunk that carries one, as OpenAI sends it with
 * `stream_options.include_usage`). Without any `usage`, the count is estimated from the text (the
 * same characters / 4 rule as the admission estimate) and marked estimated.
 */
import { textTokens } from './stream-admission.js';

/** Tokens of one call. */
export interface CallUsage {
  promptTokens: number;
  completionTokens: number;
  /** True when the engine reported no `usage` and the count is an estimate. */
  estimated: boolean;
}

const whole = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : null);

/** The `usage` an answer or chunk reports (`prompt_tokens`, `completion_tokens`, else `total_tokens` minus prompt), or null. */
export function reportedUsage(body: unknown): { promptTokens: number; completionTokens: number } | null {
  const usage = (body as { usage?: unknown } | null)?.usage;
  if (usage === null || typeof usage !== 'object') return null;
  const fields = usage as Record<string, unknown>;
  const prompt = whole(fields['prompt_tokens']);
  if (prompt === null) return null;
  const completion = whole(fields['completion_tokens']) ?? Math.max(0, (whole(fields['total_tokens']) ?? prompt) - prompt);
  return { promptTokens: prompt, completionTokens: completion };
}

/** The text an answer or chunk generated: choices' message or delta content, or completion text. */
function generatedText(body: unknown): string {
  const choices = (body as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices)) return '';
  let text = '';
  for (const choice of choices) {
    const fields = (choice ?? {}) as Record<string, unknown>;
    const message = (fields['message'] ?? fields['delta']) as Record<string, unknown> | undefined;
    if (typeof message?.['content'] === 'string') text += message['content'];
    if (typeof fields['text'] === 'string') text += fields['text'];
  }
  return text;
}

/** The usage of a complete (non-streamed) answer; `promptEstimate` stands in when none is reported. */
export function answerUsage(body: unknown, promptEstimate: number): CallUsage {
  const reported = reportedUsage(body);
  if (reported !== null) return { ...reported, estimated: false };
  return { promptTokens: promptEstimate, completionTokens: textTokens(generatedText(body)), estimated: true };
}

/**
 * Follows a stream's chunks (parsed JSON of each `data:` line) and answers its usage at the end:
 * the reported `usage` when a chunk carried one, else an estimate from the text streamed so far
 * (a stream cut off midway is charged what it produced).
 */
export class StreamUsage {
  readonly #promptEstimate: number;
  #reported: { promptTokens: number; completionTokens: number } | null = null;
  #text = '';

  constructor(promptEstimate: number) {
    this.#promptEstimate = promptEstimate;
  }

  /** Notes one chunk. */
  add(chunk: unknown): void {
    const reported = reportedUsage(chunk);
    if (reported !== null) this.#reported = reported;
    this.#text += generatedText(chunk);
  }

  /** The usage so far. */
  result(): CallUsage {
    if (this.#reported !== null) return { ...this.#reported, estimated: false };
    return { promptTokens: this.#promptEstimate, completionTokens: textTokens(this.#text), estimated: true };
  }
}
