/**
 * The `fetch` openapi-fetch sends through: ky, configured for svc. ky owns the per-attempt timeout,
 * the retries (idempotent methods only, on 408, 429 and 5xx answers, connection failures and
 * timeouts), `Retry-After` and capped, jittered exponential backoff. What svc adds: `retry-after-ms`
 * is honoured (ky reads only `Retry-After`), and a `beforeError` hook refreshes a session token the
 * server calls expired and replays the call once. What ky throws becomes the SDK's own errors.
 */
import ky, { HTTPError, isTimeoutError, type BeforeErrorHook, type KyInstance, type ShouldRetryState } from 'ky';
import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError, SvcError } from './errors.js';
import type { OutgoingRequest } from './outgoing-request.js';
import { retryAfterMs } from './retry-after.js';

/** Refreshes the session whose access token the server called expired; resolves to the token to replay with, or null. */
export type ExpiredTokenHandler = (staleAccessToken: string) => Promise<string | null>;

/** How the transport behaves. */
export interface TransportOptions {
  fetch: typeof fetch;
  timeoutMs: number;
  maxRetries: number;
  /** Called on a 401 `token_expired`; without it such answers are returned as they are. */
  onExpiredToken?: ExpiredTokenHandler;
}

/** Per-call changes to the transport's defaults. */
export interface TransportOverrides {
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
}

/** A `fetch` for openapi-fetch, and the same with other limits for one call. */
export interface Transport {
  send: SendCall;
  with(overrides: TransportOverrides): SendCall;
}

/**
 * openapi-fetch's `fetch`: it declares a `Request`, and hands over the {@link OutgoingRequest} it was
 * given as its `Request` class (see `client.ts`).
 */
export type SendCall = (request: Request) => Promise<Response>;

/** Statuses worth another attempt: 408, 429 and every 5xx. */
const RETRYABLE_STATUSES = [408, 429, ...Array.from({ length: 100 }, (_, index) => 500 + index)];
/** A server that asks for a longer wait than this gets its answer back instead of a retry. */
const MAX_RETRY_WAIT_MS = 60_000;
/** Marks the replay of a call after a refresh, so it is replayed only once. */
const REPLAYED = 'svcReplayed';

/** Builds the transport. */
export function createTransport(options: TransportOptions): Transport {
  const base = kyFor(options, options.timeoutMs, options.maxRetries);
  return {
    send: (request) => sendThrough(base, request as unknown as OutgoingRequest, options.timeoutMs),
    with(overrides) {
      const timeoutMs = overrides.timeoutMs ?? options.timeoutMs;
      const instance = kyFor(options, timeoutMs, overrides.maxRetries ?? options.maxRetries);
      return (request) => sendThrough(instance, request as unknown as OutgoingRequest, timeoutMs);
    },
  };
}

function kyFor(options: TransportOptions, timeoutMs: number, maxRetries: number): KyInstance {
  const onExpiredToken = options.onExpiredToken;
  const instance: KyInstance = ky.create({
    fetch: withMillisecondsRetryAfter(options.fetch),
    timeout: timeoutMs,
    throwHttpErrors: true,
    retry: {
      limit: maxRetries,
      methods: ['get', 'head', 'put', 'delete', 'options'],
      statusCodes: RETRYABLE_STATUSES,
      afterStatusCodes: RETRYABLE_STATUSES,
      delay: (attempt) => 500 * 2 ** (attempt - 1),
      backoffLimit: 8000,
      jitter: (wait) => wait * (0.75 + Math.random() * 0.25),
      retryOnTimeout: true,
      shouldRetry,
    },
    // Not an afterResponse hook: ky clones every response for those, a cost on every call. An error
    // answer reaches beforeError once ky will not retry it; a 401 is never retried.
    hooks: onExpiredToken === undefined ? {} : { beforeError: [refreshExpiredToken(onExpiredToken, () => instance)] },
  });
  return instance;
}

/**
 * The refresh-on-401 hook: a 401 `token_expired` to a token the session sent refreshes the session
 * (one refresh for every concurrent caller) and replays the call once, through the same ky instance;
 * the replay's answer takes the place of the 401 (the transport hands on `error.response`).
 */
function refreshExpiredToken(onExpiredToken: ExpiredTokenHandler, instance: () => KyInstance): BeforeErrorHook {
  return async (error) => {
    const { request, response } = error;
    if (response.status !== 401 || error.options.context[REPLAYED] === true) return error;
    const stale = /^Bearer +(\S+)/i.exec(request.headers.get('authorization') ?? '')?.[1];
    if (stale === undefined || (await errorCode(response.clone())) !== 'token_expired') return error;
    const fresh = await onExpiredToken(stale);
    if (fresh === null) return error;
    const replay = new Request(request);
    replay.headers.set('authorization', `Bearer ${fresh}`);
    error.response = await instance()(replay, { context: { [REPLAYED]: true }, throwHttpErrors: false });
    return error;
  };
}

/** Sends `request` through `instance`; an error answer is returned (openapi-fetch reads it), anything else thrown as an SvcError. */
async function sendThrough(instance: KyInstance, request: OutgoingRequest, timeoutMs: number): Promise<Response> {
  try {
    return await instance(request.url, request.init);
  } catch (error) {
    if (error instanceof HTTPError) return error.response;
    if (error instanceof SvcError) throw error;
    if (request.signal?.aborted === true) throw new APIUserAbortError({ cause: request.signal.reason });
    if (isTimeoutError(error)) throw new APIConnectionTimeoutError(timeoutMs, request.url);
    throw new APIConnectionError(`Could not reach the svc server at ${request.url}: ${describeCause(error)}`, { cause: error });
  }
}

/** ky asks before every retry: never after the caller's abort or an SDK error, nor when the server asks for too long a wait. */
function shouldRetry({ error }: ShouldRetryState): false | undefined {
  if (error instanceof SvcError || error.name === 'AbortError') return false;
  if (error instanceof HTTPError && (retryAfterMs(error.response.headers) ?? 0) > MAX_RETRY_WAIT_MS) return false;
  return undefined;
}

/**
 * ky honours `Retry-After` only: an error answer with the more precise `retry-after-ms` is handed to
 * ky with it as `Retry-After` too (at the `fetch` ky calls, so successes pass untouched).
 */
function withMillisecondsRetryAfter(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.ok || !response.headers.has('retry-after-ms')) return response;
    const wait = retryAfterMs(response.headers);
    if (wait === undefined) return response;
    const headers = new Headers(response.headers);
    headers.set('retry-after', String(wait / 1000));
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

async function errorCode(response: Response): Promise<string | undefined> {
  return response
    .json()
    .then((body: { error?: { code?: string } }) => body.error?.code)
    .catch(() => undefined);
}

/** `fetch failed` says nothing: name the underlying cause (`connect ECONNREFUSED 127.0.0.1:9997`) when there is one. */
function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error && cause.message !== '') return cause.message;
  if (typeof cause === 'object' && cause !== null && 'code' in cause) return `${error.message} (${String(cause.code)})`;
  return error.message;
}
