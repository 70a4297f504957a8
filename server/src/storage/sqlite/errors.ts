/**
 * The SQLite adapter's error boundary: SQLite errors that mean "the database cannot be used now"
 * (busy, locked, unreadable, full) become the port's {@link StorageUnavailableError}, which every
 * caller answers with 503; anything else (a programming error) passes through unchanged.
 */
import { StorageUnavailableError } from '../port/errors.js';

/** SQLite primary codes meaning the database cannot be used now; extended codes (SQLITE_IOERR_WRITE…) count too. */
const unavailableCodes = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_FULL', 'SQLITE_PROTOCOL'];

/** The SQLite error code of `error`, or `''`. */
export function sqliteCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** `error` as the port reports it: a {@link StorageUnavailableError} when the database cannot be used now. */
export function toStorageError(error: unknown): unknown {
  const code = sqliteCode(error);
  if (code === '' || error instanceof StorageUnavailableError) return error;
  if (unavailableCodes.some((primary) => code === primary || code.startsWith(`${primary}_`))) {
    return new StorageUnavailableError(`the database cannot be used now (${code})`, { cause: error });
  }
  return error;
}

/** Runs synchronous database `work` and answers its result as a promise, errors mapped by {@link toStorageError}. */
export function attempt<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(toStorageError(error));
  }
}

/** Runs synchronous database `work`, throwing errors mapped by {@link toStorageError} (for synchronous callers). */
export function attemptSync<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw toStorageError(error);
  }
}
