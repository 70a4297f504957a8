/**
 * Opaque secrets handed to clients and stored only as SHA-256 digests: refresh tokens
 * (`svc_rt_` + 256 random bits, base64url).
 */
import { createHash, randomBytes } from 'node:crypto';

const REFRESH_PREFIX = 'svc_rt_';

/** A new refresh token. */
export function generateRefreshToken(): string {
  return REFRESH_PREFIX + randomBytes(32).toString('base64url');
}

/** The digest a refresh token is stored and looked up under. */
export function refreshTokenDigest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
