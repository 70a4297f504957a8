/**
 * The fingerprint of a secret, stored so that every host of a deployment can prove it holds the same
 * secret without the database holding anything usable about it: HMAC-SHA-256 of a fixed label under
 * the secret. Without the secret it cannot be computed, and it cannot be turned back into the secret
 * (unlike a plain hash, it cannot be checked against guesses without a full HMAC per guess; the
 * secrets hold at least 256 random bits, so guessing is hopeless either way). The label holds a NUL
 * byte, which no JWT signing input (base64url text and dots) can, so the fingerprint of the JWT
 * signing secret is never the signature of a token.
 */
import { createHmac } from 'node:crypto';
import type { SecretName } from '../storage/port/index.js';

/** The version of the scheme, kept in the stored text so that another scheme can be told apart. */
const SCHEME = 'hmac-sha256-v1';

/**
 * The stored fingerprint of `secret` under the name it is kept as.
 *
 * @example
 * secretFingerprint('0f3c…', 'jwt_signing'); // 'hmac-sha256-v1:5d1e…'
 */
export function secretFingerprint(secret: string, name: SecretName): string {
  const digest = createHmac('sha256', secret).update(`svc secret fingerprint\0${SCHEME}\0${name}`).digest('hex');
  return `${SCHEME}:${digest}`;
}
