/**
 * The OpenAI-style rate-limit headers of a model answer, pure: `x-ratelimit-{limit,remaining,reset}-
 * {requests,tokens}`, with resets written as OpenAI writes them (Go durations: `20ms`, `1s`, `6m0s`,
 * `1.5s`), and on a 429 `retry-after` (whole seconds, rounded up) and `retry-after-ms` (which the
 * `openai` package prefers).
 */

/** One dimension's state: the tightest limit that applies to the request. */
export interface LimitState {
  limit: number;
  remaining: number;
  resetMs: number;
}

/** The states to report; a dimension without a limit is left out. */
export interface RateLimitState {
  requests: LimitState | null;
  tokens: LimitState | null;
}

/** A duration as the headers count it: whole milliseconds, rounded up, never below zero. */
const wholeMs = (ms: number): number => Math.max(0, Math.ceil(ms));

/**
 * `ms` as a Go duration string, as OpenAI's headers write it: below a second in whole milliseconds
 * (`20ms`, `0s` for none), else hours, minutes and seconds with up to three decimals (`1s`, `1.5s`,
 * `6m0s`, `1h0m0s`).
 */
export function formatDuration(ms: number): string {
  const whole = wholeMs(ms);
  if (whole === 0) return '0s';
  if (whole < 1000) return `${whole}ms`;
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor((whole % 3_600_000) / 60_000);
  const secondsText = secondsOf(whole % 60_000);
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${minutes}m${secondsText}`;
  return secondsText;
}

/** `ms` (below a minute, whole) as seconds with up to three decimals and no trailing zero: `0s`, `1s`, `1.5s`, `2.05s`, `59.999s`. */
function secondsOf(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const millis = ms % 1000;
  if (millis === 0) return `${seconds}s`;
  if (millis % 100 === 0) return `${seconds}.${millis / 100}s`;
  if (millis % 10 === 0) return `${seconds}.${millis < 100 ? '0' : ''}${millis / 10}s`;
  return `${seconds}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}s`;
}

/**
 * Whether `candidate` is tighter than `current`, the limit the headers report: fewer remaining; on a
 * tie, the later reset; on a full tie, `current` stays.
 */
export function isTighter(candidate: LimitState, current: LimitState): boolean {
  return candidate.remaining !== current.remaining ? candidate.remaining < current.remaining : candidate.resetMs > current.resetMs;
}

/** A dimension's `x-ratelimit-remaining-*` text: whole units, never below zero. */
const remainingText = (state: LimitState): string => String(Math.max(0, Math.floor(state.remaining)));

/** The `x-ratelimit-*` headers of `state` (none for a dimension without a limit). */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  const headers: Record<string, string> = {};
  const { requests, tokens } = state;
  if (requests !== null) {
    headers['x-ratelimit-limit-requests'] = String(requests.limit);
    headers['x-ratelimit-remaining-requests'] = remainingText(requests);
    headers['x-ratelimit-reset-requests'] = formatDuration(requests.resetMs);
  }
  if (tokens !== null) {
    headers['x-ratelimit-limit-tokens'] = String(tokens.limit);
    headers['x-ratelimit-remaining-tokens'] = remainingText(tokens);
    headers['x-ratelimit-reset-tokens'] = formatDuration(tokens.resetMs);
  }
  return headers;
}

/** The last value one header was formatted for and its text (a limiter formats the same values call after call). */
class LastText {
  #value = Number.NaN;
  #text = '';

  /** `format(value)`, computed only when `value` differs from the last one. */
  of(value: number, format: (value: number) => string): string {
    if (value !== this.#value) {
      this.#value = value;
      this.#text = format(value);
    }
    return this.#text;
  }
}

/** One dimension's header texts, each remembered for the value it was last formatted for. */
class DimensionTexts {
  readonly limit = new LastText();
  readonly reset = new LastText();
}

/**
 * {@link rateLimitHeaders} for the calls of one process, the same headers with less work per call:
 * a limit's and a reset's text are formatted only when the value differs from the one formatted
 * before it (a limit's never changes; a reset's once a millisecond, and on a busy server several
 * calls in a row see the same; the remaining counts change with every call and are written as
 * they are), and the six headers are written in one object literal. Exact: each header's text is
 * the one {@link rateLimitHeaders} writes for the same state.
 */
export class RateLimitHeaderWriter {
  readonly #requests = new DimensionTexts();
  readonly #tokens = new DimensionTexts();

  /** The `x-ratelimit-*` headers of the states (null: a dimension without a limit, left out). */
  headers(requests: LimitState | null, tokens: LimitState | null): Record<string, string> {
    if (requests === null || tokens === null) return rateLimitHeaders({ requests, tokens });
    const r = this.#requests;
    const t = this.#tokens;
    return {
      'x-ratelimit-limit-requests': r.limit.of(requests.limit, String),
      'x-ratelimit-remaining-requests': remainingText(requests),
      'x-ratelimit-reset-requests': r.reset.of(wholeMs(requests.resetMs), formatDuration),
      'x-ratelimit-limit-tokens': t.limit.of(tokens.limit, String),
      'x-ratelimit-remaining-tokens': remainingText(tokens),
      'x-ratelimit-reset-tokens': t.reset.of(wholeMs(tokens.resetMs), formatDuration),
    };
  }
}

/** `retry-after` (seconds, at least 1) and `retry-after-ms` for a refusal that may be retried after `ms`. */
export function retryAfterHeaders(ms: number): Record<string, string> {
  const wait = wholeMs(ms);
  return { 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))), 'retry-after-ms': String(wait) };
}
