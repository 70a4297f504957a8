/**
 * Password hashing with argon2id (m = 19456 KiB, t = 2, p = 1, the OWASP minimum). Hashing runs on
 * libuv's thread pool, off the event loop. Verifying against an unknown user hashes a dummy so the
 * answer takes the same time as a wrong password.
 */
import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which isolated modules cannot import). */
const ARGON2ID = 2;

/** The argon2id parameters every new hash uses. */
export const passwordHashParameters = {
  algorithm: ARGON2ID,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
} as const;

/**
 * Passwords are compared in Unicode NFKC form (NIST SP 800-63B), so one passphrase typed with
 * composed or decomposed characters is the same password.
 */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/** Hashes a password with a fresh random salt (PHC string format). */
export function hashPassword(password: string): Promise<string> {
  return hash(normalizePassword(password), passwordHashParameters);
}

let dummyHash: Promise<string> | undefined;

/**
 * True when `password` matches `storedHash`. With `storedHash` null (no such user) a dummy hash is
 * verified anyway and the answer is false.
 */
export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  if (storedHash === null) {
    dummyHash ??= hashPassword('svc dummy password for absent users');
    await verify(await dummyHash, normalizePassword(password)).catch(() => false);
    return false;
  }
  try {
    return await verify(storedHash, normalizePassword(password));
  } catch {
    return false;
  }
}
