/**
 * The API-key format: `sk-svc-` + 43 base62 characters of CSPRNG output (256 bits) + a 6-character
 * base62 CRC32 checksum of everything before it, so typos and leaked keys are recognisable offline.
 * Legacy keys migrated from the JSON configuration (`sk-` + 13 alphanumerics) are recognised too.
 */
import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** The prefix of every key this server issues. */
export const API_KEY_PREFIX = 'sk-svc-';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
const CURRENT_KEY = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);
const LEGACY_KEY = /^sk-[0-9A-Za-z]{13}$/;
/** Characters of a key kept for display (`sk-svc-` + 4). */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 4;

/** How a presented string looks as an API key. */
export type ApiKeyShape = 'current' | 'legacy' | 'malformed';

/** Generates a new key: 256 random bits in base62 with a checksum. */
export function generateApiKey(): string {
  let body = '';
  while (body.length < RANDOM_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && body.length < RANDOM_LENGTH) body += BASE62[byte % 62];
    }
  }
  const withoutChecksum = API_KEY_PREFIX + body;
  return withoutChecksum + checksum(withoutChecksum);
}

/** Classifies a presented key; a current-format key with a wrong checksum is `malformed`. */
export function apiKeyShape(key: string): ApiKeyShape {
  if (CURRENT_KEY.test(key)) {
    const split = key.length - CHECKSUM_LENGTH;
    return checksum(key.slice(0, split)) === key.slice(split) ? 'current' : 'malformed';
  }
  return LEGACY_KEY.test(key) ? 'legacy' : 'malformed';
}

/** The SHA-256 digest under which a key is stored and looked up. */
export function apiKeyDigest(key: string): Buffer {
  return Buffer.from(apiKeyDigestBase64(key), 'base64');
}

/** The same digest in base64: the cheap form (one-shot hash, no buffer) for in-memory lookups. */
export function apiKeyDigestBase64(key: string): string {
  return hash('sha256', key, 'base64');
}

/** The part of a key shown in listings. */
export function apiKeyDisplayPrefix(key: string): string {
  return key.startsWith(API_KEY_PREFIX) ? key.slice(0, DISPLAY_PREFIX_LENGTH) : key.slice(0, 7);
}

function checksum(text: string): string {
  let value = crc32(text);
  let encoded = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i += 1) {
    encoded = BASE62[value % 62] + encoded;
    value = Math.floor(value / 62);
  }
  return encoded;
}
