/**
 * How `svc` reports an SDK error: one line and an exit code. A 401 says how to log in, a 403 repeats
 * the server's message (which names the missing permission), a network failure names the endpoint.
 */
import {
  APIConnectionError,
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from '@svc/sdk';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { describeLocalError } from '../main.js';

/** What the error reporter needs to know about the failed command. */
export interface ErrorContext {
  endpoint: string;
  /** True when the command authenticated with an API key. */
  usedApiKey: boolean;
}

let current: ErrorContext | undefined;

/** Remembers the connection of the running command, for {@link describeError}. */
export function setErrorContext(context: ErrorContext): void {
  current = context;
}

/** The message and exit code for any error `svc` may end with. */
export function describeError(error: unknown): { message: string; exitCode: ExitCodeValue } {
  const endpoint = current?.endpoint ?? 'the server';
  if (error instanceof AuthenticationError) {
    const advice = current?.usedApiKey
      ? 'check --api-key (or SVC_API_KEY), or log in with: svc login'
      : `log in with: svc login -e ${endpoint} --username <name>`;
    return { message: `${error.message.replace(/\.$/, "")}; ${advice}`, exitCode: ExitCode.authentication };
  }
  if (error instanceof PermissionDeniedError) return { message: `forbidden: ${error.message}`, exitCode: ExitCode.forbidden };
  if (error instanceof NotFoundError || error instanceof ConflictError) return { message: error.message, exitCode: ExitCode.notFoundOrConflict };
  if (error instanceof BadRequestError || error instanceof UnprocessableEntityError) {
    return { message: error.param === undefined ? error.message : `${error.message} (${error.param})`, exitCode: ExitCode.usage };
  }
  if (error instanceof RateLimitError) {
    // A ban's message already says how long to wait ("…; try again in 3600 seconds"); say it only once.
    const message = error.message.replace(/\.$/, '');
    const wait = retryAfterSeconds(error.headers.get('retry-after'));
    const said = wait !== undefined && new RegExp(`\\b${wait}\\b`).test(message);
    return { message: wait === undefined || said ? message : `${message}; try again in ${wait} seconds`, exitCode: ExitCode.unavailable };
  }
  if (error instanceof APIError) return { message: `the server answered ${error.status}: ${error.message}`, exitCode: ExitCode.unavailable };
  if (error instanceof APIConnectionError) {
    const code = systemErrorCode(error);
    return { message: `cannot reach ${endpoint}: ${code ?? error.message}`, exitCode: ExitCode.unavailable };
  }
  return describeLocalError(error);
}

/** The first system error code (`ECONNREFUSED`, …) along an error's chain of causes, else the innermost message. */
function systemErrorCode(error: unknown): string | undefined {
  let innermost: string | undefined;
  for (let current: unknown = error, depth = 0; typeof current === 'object' && current !== null && depth < 8; depth += 1) {
    const { code, cause, message } = current as { code?: unknown; cause?: unknown; message?: unknown };
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    if (typeof message === 'string') innermost = message;
    current = cause;
  }
  return innermost;
}

/** `Retry-After` in whole seconds (it may be a number of seconds or an HTTP date), if present and valid. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : Math.max(0, Math.ceil((time - now) / 1000));
}
