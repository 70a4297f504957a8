/**
 * What "key" means for per-(IP, key) counting: a failed API key or token has no stored id (it
 * matched nothing), so it is named by the first 64 bits of the SHA-256 of the presented text,
 * written `sha256:<16 hex>`. The same credential always gets the same id; the id cannot be turned
 * back into the credential, so it may be stored, listed and audited.
 */
import { createHash } from 'node:crypto';

/** The id under which failures of `credential` are counted. */
export function credentialId(credential: string): string {
  return `sha256:${createHash('sha256').update(credential).digest('hex').slice(0, 16)}`;
}

/** The same id for a stored API key, from its SHA-256 digest (so its bans can be found by key). */
export function credentialIdOfDigest(digest: Buffer): string {
  return `sha256:${digest.toString('hex').slice(0, 16)}`;
}
