/**
 * The random values of a sign-in: PKCE verifiers and their S256 challenges (RFC 7636), `state`,
 * `nonce`, the browser binding and the CLI's one-time codes, and the digests they are stored under.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, base64url: a PKCE verifier, a state, a nonce or a binding secret. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The S256 challenge of a PKCE verifier: BASE64URL(SHA-256(verifier)). */
export function codeChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** True when `verifier` is the one whose S256 challenge is `challenge`, compared in constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  const expected = Buffer.from(challenge, 'utf8');
  const actual = Buffer.from(codeChallenge(verifier), 'utf8');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The SHA-256 digest a secret is stored and looked up under. */
export function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** True when `secret` hashes to `stored`, compared in constant time. */
export function digestMatches(secret: string, stored: Buffer): boolean {
  const actual = digest(secret);
  return actual.length === stored.length && timingSafeEqual(actual, stored);
}
