/**
 * Reads the OpenAI-style rate-limit headers svc sends on model answers (and 429s):
 * `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, resets written as Go durations (`20ms`,
 * `1s`, `1.5s`, `6m0s`).
 */

/** One limit's state. */
export interface RateLimitWindow {
  limit: number;
  remaining: number;
  /** Milliseconds until the limit is full again. */
  resetMs: number;
}

/** The limits an answer reported; a dimension the answer did not report is undefined. */
export interface RateLimits {
  requests?: RateLimitWindow;
  tokens?: RateLimitWindow;
}

const UNITS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 };
const DURATION = /^(?:(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns))+$/;
const PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g;

/**
 * Milliseconds of a Go duration (`6m0s`, `1.5s`, `20ms`); undefined when `text` is not one.
 *
 * @example
 * parseDuration('6m0s'); // 360000
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  if (!DURATION.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) total += Number(amount) * (UNITS[unit as string] as number);
  return total;
}

function window(headers: Headers, dimension: 'requests' | 'tokens'): RateLimitWindow | undefined {
  const limit = Number(headers.get(`x-ratelimit-limit-${dimension}`) ?? Number.NaN);
  const remaining = Number(headers.get(`x-ratelimit-remaining-${dimension}`) ?? Number.NaN);
  const resetMs = parseDuration(headers.get(`x-ratelimit-reset-${dimension}`) ?? '');
  if (!Number.isFinite(limit) || !Number.isFinite(remaining) || resetMs === undefined) return undefined;
  return { limit, remaining, resetMs };
}

/**
 * The rate limits reported by an answer's headers.
 *
 * @example
 * const { requests } = readRateLimits(response.headers);
 * if (requests !== undefined && requests.remaining === 0) await sleep(requests.resetMs);
 */
export function readRateLimits(headers: Headers): RateLimits {
  const limits: RateLimits = {};
  const requests = window(headers, 'requests');
  const tokens = window(headers, 'tokens');
  if (requests !== undefined) limits.requests = requests;
  if (tokens !== undefined) limits.tokens = tokens;
  return limits;
}
