/**
 * Turns anything a call can throw into one sentence for the user: the server's own message (its
 * `detail`), or what went wrong on the way.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, AuthenticationError, PermissionDeniedError, RateLimitError } from '@svc/sdk';

/** A readable sentence for `error`. */
export function describeError(error: unknown): string {
  if (error instanceof APIConnectionTimeoutError) return 'The server did not answer in time. Try again.';
  if (error instanceof APIConnectionError) return 'Cannot reach the server. Check that it is running and try again.';
  if (error instanceof RateLimitError) return withPeriod(error.message || 'Too many attempts; wait a moment and try again');
  if (error instanceof PermissionDeniedError) return withPeriod(error.message || 'You do not have permission for this');
  if (error instanceof AuthenticationError) return withPeriod(error.message || 'Your session has ended; log in again');
  if (error instanceof APIError) return withPeriod(error.message || `The server answered ${error.status}`);
  if (error instanceof Error) return withPeriod(error.message);
  return 'Something went wrong.';
}

function withPeriod(message: string): string {
  return /[.!?]$/.test(message) ? message : `${message}.`;
}
