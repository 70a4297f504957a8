/**
 * Sends one request with a per-attempt timeout, and retries it where that is safe: idempotent
 * methods only, on 408, 429 and 5xx answers and on connection failures, honouring `retry-after-ms`
 * and `Retry-After`, with capped, jittered exponential backoff.
 */
import { APIConnectionError, APIConnectionTimeoutError } from './errors.js';

/** How the transport behaves. */
export interface TransportOptions {
  fetch: typeof fetch;
  timeoutMs: number;
  maxRetries: number;
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
/** A server that asks for a longer wait than this gets its answer back instead of a retry. */
const MAX_RETRY_WAIT_MS = 60_000;

/** True when a response with this status may be retried. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** A `fetch` with the transport's timeout and retries. */
export function createTransport(options: TransportOptions): (request: Request) => Promise<Response> {
  return async function send(request: Request): Promise<Response> {
    const retryable = IDEMPOTENT_METHODS.has(request.method.toUpperCase());
    for (let attempt = 0; ; attempt += 1) {
      const mayRetry = retryable && attempt < options.maxRetries;
      // A request without a body can be sent again as it is; one with a body is cloned for the retry.
      const attemptRequest = mayRetry && request.body !== null ? request.clone() : request;
      let response: Response;
      try {
        response = await fetchWithTimeout(options, attemptRequest);
      } catch (error) {
        if (mayRetry && !request.signal.aborted) {
          await sleep(backoffMs(attempt));
          continue;
        }
        throw error;
      }
      if (!mayRetry || !isRetryableStatus(response.status)) return response;
      const wait = retryAfterMs(response.headers) ?? backoffMs(attempt);
      if (wait > MAX_RETRY_WAIT_MS) return response;
      // Not awaited: the retry does not depend on it, and under msw's fetch interceptor (@mswjs/interceptors
      // 0.41, mswjs/interceptors#799) cancelling a mocked body never settles, which would hang the call.
      void response.body?.cancel().catch(() => undefined);
      await sleep(wait);
    }
  };
}

async function fetchWithTimeout(options: TransportOptions, request: Request): Promise<Response> {
  const controller = new AbortController();
  const abortFromCaller = () => controller.abort(request.signal.reason);
  if (request.signal.aborted) abortFromCaller();
  request.signal.addEventListener('abort', abortFromCaller, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  try {
    return await options.fetch(new Request(request, { signal: controller.signal }));
  } catch (error) {
    if (timedOut) throw new APIConnectionTimeoutError(options.timeoutMs);
    if (request.signal.aborted) throw error;
    throw new APIConnectionError(`Could not reach the svc server: ${(error as Error).message ?? String(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
    request.signal.removeEventListener('abort', abortFromCaller);
  }
}

/** The wait the server asked for, in milliseconds, if any. */
export function retryAfterMs(headers: Headers): number | undefined {
  const milliseconds = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function backoffMs(attempt: number): number {
  const base = Math.min(500 * 2 ** attempt, 8000);
  return base * (0.75 + Math.random() * 0.25);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
