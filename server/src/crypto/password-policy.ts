/**
 * The password policy (NIST SP 800-63B): a minimum length counted in code points (configurable, never
 * below 8), a maximum of 1024, no composition rules, and a blocklist of common passwords.
 */
import { createRequire } from 'node:module';
import { ApiError } from '../errors.js';
import { PASSWORD_MAX_LENGTH } from '../config.js';
import { normalizePassword } from './passwords.js';

interface CommonPasswordList {
  test(password: string): boolean;
}
// Mozilla's list of the 50,000 most common passwords of 8 characters or more (CommonJS package).
const commonPasswords = createRequire(import.meta.url)('fxa-common-password-list') as CommonPasswordList;

/**
 * Throws a 400 {@link ApiError} naming the reason when `password` breaks the policy. Every check
 * runs on the NFKC form that is hashed (issue 14, H5): `ｐａｓｓｗｏｒｄｐａｓｓｗｏｒｄ` is
 * `passwordpassword` to the hash, so it is refused like it.
 *
 * @param field - the request field, reported as `param`.
 */
export function assertPasswordAcceptable(password: string, minLength: number, username: string | null, field: string): void {
  const normalized = normalizePassword(password);
  const length = [...normalized].length;
  if (length < minLength) {
    throw new ApiError('password_too_short', `Password must be at least ${minLength} characters long`, { param: field });
  }
  if (length > PASSWORD_MAX_LENGTH) {
    throw new ApiError('password_too_long', `Password must be at most ${PASSWORD_MAX_LENGTH} characters long`, { param: field });
  }
  const lower = normalized.toLowerCase();
  const reason = commonPasswords.test(lower)
    ? 'it is on the list of commonly used passwords'
    : username !== null && lower === username.normalize('NFKC').toLowerCase()
      ? 'it is the same as the username'
      : new Set(normalized).size === 1
        ? 'it repeats a single character'
        : null;
  if (reason !== null) {
    throw new ApiError('password_too_common', `Password is too easy to guess: ${reason}; choose a longer passphrase`, { param: field });
  }
}
