/**
 * How PostgreSQL and connection failures map onto the storage port's errors: everything that means
 * "the database cannot be used now" (down, restarting, failing over, overloaded, a lock or statement
 * timeout) becomes a {@link StorageUnavailableError}, which answers 503. Anything else (a constraint
 * the adapter did not expect, a syntax error) stays what it is: a programming error, a 500.
 */
import { StorageUnavailableError } from '../port/errors.js';

/**
 * SQLSTATE classes that mean the server or the connection cannot serve now: connection exceptions,
 * insufficient resources, operator intervention, system errors, and invalid authorization (a
 * password rotated under a running deployment answers 503, not 500).
 */
const unavailableClasses = ['08', '28', '53', '57', '58'];
/** Single SQLSTATEs that mean the same: lock timeout, read-only (after a failover), serialization failure and deadlock once retries ran out, no such database. */
const unavailableStates = new Set(['55P03', '25006', '40001', '40P01', '57014', '57P01', '57P02', '57P03', '3D000']);
/** Node socket errors. */
const socketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Messages of `pg` itself when a connection is lost or cannot be had. */
const driverMessages = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  // pg.Client's own connect timeout (CONNECT_TIMEOUT_MESSAGE): a host that accepts no connection or
  // never answers, or a name lookup slower than the timeout.
  'timeout expired',
  'Client has encountered a connection error and is not queryable',
  'Query read timeout',
  'Cannot use a pool after calling end on the pool',
  'Client was closed and is not queryable',
];

/** The SQLSTATE (or Node error code) of `error`, looking through a {@link StorageUnavailableError}'s cause. */
export function errorCode(error: unknown): string | undefined {
  if (error instanceof StorageUnavailableError) return errorCode(error.cause);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Serialization failures and deadlocks: the whole transaction may simply run again. */
export function isRetryable(error: unknown): boolean {
  const code = errorCode(error);
  return code === '40001' || code === '40P01';
}

/** Whether `error` means the database cannot be used now. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof StorageUnavailableError) return true;
  const code = errorCode(error);
  if (code !== undefined) {
    if (socketCodes.has(code) || unavailableStates.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && unavailableClasses.includes(code.slice(0, 2))) return true;
  }
  const message = error instanceof Error ? error.message : '';
  return driverMessages.some((known) => message.includes(known));
}

/** What pg.Client rejects with when a connection is not ready within its `connectionTimeoutMillis`. */
export const CONNECT_TIMEOUT_MESSAGE = 'timeout expired';

/**
 * Whether `error` says the database is not ready *yet*, as right after it or its network was started:
 * the server is starting up (57P03), a name lookup failed for now (`EAI_AGAIN`), or a connection got
 * no answer within its connect timeout (pg's `timeout expired`). Looks through a
 * {@link StorageUnavailableError}'s cause. Not a refused connection, a failed password or a missing
 * database: those say "no", and a tool that waited on them would only delay the error.
 */
export function isNotReadyYet(error: unknown): boolean {
  const code = errorCode(error);
  if (code === '57P03' || code === 'EAI_AGAIN') return true;
  const original = error instanceof StorageUnavailableError ? error.cause : error;
  return original instanceof Error && original.message === CONNECT_TIMEOUT_MESSAGE;
}

/** `error` as the port reports it: unavailability wrapped, everything else unchanged. */
export function toStorageError(error: unknown): unknown {
  if (error instanceof StorageUnavailableError || !isUnavailable(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new StorageUnavailableError(`the database is unavailable: ${reason}`, { cause: error });
}
