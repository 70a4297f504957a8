/**
 * The SDK's errors: one {@link APIError} base for every answer of the server that is not a success,
 * a subclass per status class chosen by {@link APIError.from}, and {@link APIConnectionError} when no
 * answer came at all. The message a user sees is the server's.
 */
import type { components } from './generated/openapi.js';
import { retryAfterMs } from './retry-after.js';
import { readRateLimits, type RateLimits } from './rate-limits.js';

/** A stable error code of the server (the contract's `ErrorCode`). */
export type ErrorCode = components['schemas']['ErrorCode'];
/** The body of every error answer. */
export type ErrorBody = components['schemas']['Error'];

/** The root of every error this SDK throws. */
export class SvcError extends Error {
  override name = 'SvcError';
}

/** The server answered, with an error. */
export class APIError extends SvcError {
  override name = 'APIError';
  /** The HTTP status. */
  readonly status: number;
  /** The server's stable error code, when the body carried one. */
  readonly code: ErrorCode | undefined;
  /** The request field at fault, when the server named one. */
  readonly param: string | undefined;
  /** The server's `X-Request-Id`, for reports and logs. */
  readonly requestId: string | undefined;
  readonly headers: Headers;
  /** The parsed error body (or the raw text when it was not JSON). */
  readonly body: unknown;

  constructor(status: number, body: unknown, headers: Headers, message?: string) {
    const parsed = asErrorBody(body);
    super(message ?? parsed?.detail ?? `HTTP ${status}`);
    this.status = status;
    this.code = parsed?.error.code;
    this.param = parsed?.error.param ?? undefined;
    this.requestId = headers.get('x-request-id') ?? undefined;
    this.headers = headers;
    this.body = body;
  }

  /** The subclass for `status`, built from the answer's body and headers. */
  static from(status: number, body: unknown, headers: Headers): APIError {
    const Class = errorClassFor(status);
    return new Class(status, body, headers);
  }
}

/** 400: the request does not match the contract, or a password breaks the policy. */
export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}
/** 401: no credentials, or credentials that failed (run `login()` again, or check the API key). */
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}
/** 403: the caller lacks a permission, or a rule forbids the change. */
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}
/** 404: no such resource, or not one the caller may see. */
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}
/** 409: the request conflicts with the current state. */
export class ConflictError extends APIError {
  override name = 'ConflictError';
}
/** 422: the request was understood but cannot be processed. */
export class UnprocessableEntityError extends APIError {
  override name = 'UnprocessableEntityError';
}
/** 429: too many requests, or the caller is banned for a while (`Retry-After`). */
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
  /**
   * Seconds to wait before trying again, from the answer's `retry-after-ms` or `Retry-After`
   * (whole seconds, rounded up); undefined when the answer named no wait.
   */
  readonly retryAfter: number | undefined;
  /** The `x-ratelimit-*` headers of the answer (a usage limit's state); empty for a ban. */
  readonly rateLimits: RateLimits;

  constructor(status: number, body: unknown, headers: Headers, message?: string) {
    super(status, body, headers, message);
    this.rateLimits = readRateLimits(headers);
    const wait = retryAfterMs(headers);
    this.retryAfter = wait === undefined ? undefined : Math.ceil(wait / 1000);
  }
}
/** 5xx: the server failed, or its database is unavailable. */
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}

/** No answer: the server could not be reached, or the connection broke. */
export class APIConnectionError extends SvcError {
  override name = 'APIConnectionError';
  constructor(message = 'Could not reach the svc server', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No answer within the configured timeout. */
export class APIConnectionTimeoutError extends APIConnectionError {
  override name = 'APIConnectionTimeoutError';
  constructor(timeoutMs: number, url?: string) {
    super(`The svc server did not answer within ${timeoutMs} ms${url === undefined ? '' : ` (${url})`}`);
  }
}

/**
 * The caller aborted the call (its `signal` fired, or a stream's `controller.abort()` was called).
 * Never retried. `cause` is the signal's reason.
 *
 * @example
 * const controller = new AbortController();
 * const call = client.keys.list({ signal: controller.signal });
 * controller.abort();
 * await call.catch((error) => error instanceof APIUserAbortError); // true
 */
export class APIUserAbortError extends SvcError {
  override name = 'APIUserAbortError';
  constructor(options?: { cause?: unknown }) {
    super('The call was aborted', options);
  }
}

function errorClassFor(status: number): new (status: number, body: unknown, headers: Headers) => APIError {
  switch (status) {
    case 400:
      return BadRequestError;
    case 401:
      return AuthenticationError;
    case 403:
      return PermissionDeniedError;
    case 404:
      return NotFoundError;
    case 409:
      return ConflictError;
    case 422:
      return UnprocessableEntityError;
    case 429:
      return RateLimitError;
    default:
      return status >= 500 ? InternalServerError : APIError;
  }
}

function asErrorBody(body: unknown): ErrorBody | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const candidate = body as Partial<ErrorBody>;
  return typeof candidate.detail === 'string' && typeof candidate.error === 'object' && candidate.error !== null ? (candidate as ErrorBody) : undefined;
}
