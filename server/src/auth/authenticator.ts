/**
 * Turns an `Authorization` header into a {@link Principal}, or an {@link ApiError} saying why not.
 * Users and keys are read live from the database; the in-process caches are dropped whenever the
 * change tracker reports a write by this or any other process, so a revocation applies to the next
 * request everywhere.
 */
import { ApiError } from '../errors.js';
import type { AccessClaims, AccessTokenFailure, AccessTokens } from '../crypto/access-tokens.js';
import { apiKeyDigestBase64, apiKeyShape } from '../crypto/api-key-format.js';
import type { ApiKeyRecord } from '../storage/api-keys-repository.js';
import type { Storage } from '../storage/storage.js';
import type { UserRecord } from '../storage/users-repository.js';
import { narrowPermissions, type PermissionSet } from './permissions.js';
import type { Principal } from './principal.js';

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;
/** `last_used_at` is written at most this often per key, keeping writes off most requests. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;
const LAST_USED_MEMORY_LIMIT = 100_000;
/** Cached users and keys per process; past this the cache starts over (a flood of unknown keys cannot grow it). */
const CACHE_LIMIT = 50_000;

function remember<K, V>(cache: Map<K, V>, key: K, value: V): void {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
}

interface CachedKey {
  key: ApiKeyRecord;
  owner: UserRecord | null;
}

/**
 * A credential the server itself issued that is no longer valid: an access token with a good
 * signature but an old token version (or a deleted account), or a deleted API key. It answers like
 * any invalid credential, but it is not a guess and is never counted towards a ban (issue 14, H7).
 */
export class RevokedCredentialError extends ApiError {}

/** The credential in a `Bearer` header, or null when there is none or the header is malformed. */
export function bearerCredential(header: string | undefined): string | null {
  if (header === undefined) return null;
  return BEARER.exec(header)?.[1] ?? null;
}

/** Authenticates requests against the database. */
export class Authenticator {
  readonly #storage: Storage;
  readonly #accessTokens: AccessTokens;
  readonly #users = new Map<string, UserRecord | null>();
  readonly #keys = new Map<string, CachedKey | null>();
  readonly #userPermissions = new WeakMap<UserRecord, PermissionSet>();
  readonly #lastUsedWritten = new Map<string, number>();
  #cacheEpoch = -1;

  constructor(storage: Storage, accessTokens: AccessTokens) {
    this.#storage = storage;
    this.#accessTokens = accessTokens;
  }

  /**
   * Authenticates the raw header value. Answers synchronously when the credential was seen before
   * (the hot path), with a promise when a token signature must be checked.
   *
   * @throws {ApiError} 400 for a malformed header, 401 for missing or failed credentials.
   */
  authenticate(header: string | undefined): Principal | Promise<Principal> {
    if (header === undefined || header === '') {
      throw new ApiError('missing_credentials', 'Not authenticated: send Authorization: Bearer <access token or API key>');
    }
    const match = BEARER.exec(header);
    if (match === null) {
      throw new ApiError('malformed_authorization_header', 'Malformed Authorization header: expected "Bearer <access token or API key>"');
    }
    const credential = match[1] as string;
    return credential.startsWith('sk-') ? this.#authenticateKey(credential) : this.#authenticateToken(credential);
  }

  #authenticateToken(token: string): Principal | Promise<Principal> {
    const known = this.#accessTokens.verifyKnown(token);
    if (known !== undefined) return this.#principalForClaims(known);
    return this.#accessTokens.verify(token).then((claims) => this.#principalForClaims(claims));
  }

  #principalForClaims(claims: AccessClaims | { failure: AccessTokenFailure }): Principal {
    if ('failure' in claims) {
      throw claims.failure === 'expired'
        ? new ApiError('token_expired', 'Access token has expired; refresh it or log in again')
        : new ApiError('invalid_token', 'Invalid access token');
    }
    this.#refreshCaches();
    const user = this.#user(claims.userId);
    if (user === null || user.tokenVersion !== claims.tokenVersion) {
      throw new RevokedCredentialError('invalid_token', 'Access token is no longer valid; log in again');
    }
    if (!user.enabled) throw new ApiError('account_disabled', 'This account is disabled');
    return { authType: 'jwt', user, apiKey: null, permissions: this.#permissionsOf(user) };
  }

  #authenticateKey(presented: string): Principal {
    const digest = apiKeyDigestBase64(presented);
    // A mistyped or made-up key is refused by its checksum before anything touches the database. A
    // cached digest belongs to a key that passed that check already (same digest, same key).
    if (!this.#keys.has(digest) && apiKeyShape(presented) === 'malformed') throw new ApiError('invalid_api_key', 'Invalid API key');
    this.#refreshCaches();
    let cached = this.#keys.get(digest);
    if (cached === undefined) {
      const key = this.#storage.apiKeys.findByDigest(Buffer.from(digest, 'base64'));
      cached = key === null ? null : { key, owner: this.#user(key.userId) };
      remember(this.#keys, digest, cached);
    }
    if (cached === null || cached.owner === null) {
      if (this.#storage.apiKeys.isRevoked(Buffer.from(digest, 'base64'))) throw new RevokedCredentialError('invalid_api_key', 'Invalid API key');
      throw new ApiError('invalid_api_key', 'Invalid API key');
    }
    const { key, owner } = cached;
    if (!key.enabled) throw new ApiError('api_key_disabled', 'This API key is disabled');
    const now = Date.now();
    if (key.expiresAt !== null && key.expiresAt <= now) throw new ApiError('api_key_expired', 'This API key has expired');
    if (!owner.enabled) throw new ApiError('account_disabled', 'The account that owns this API key is disabled');
    this.#recordUse(key, now);
    return { authType: 'api_key', user: owner, apiKey: key, permissions: narrowPermissions(this.#permissionsOf(owner), key.permissions) };
  }

  #user(id: string): UserRecord | null {
    let user = this.#users.get(id);
    if (user === undefined) {
      user = this.#storage.users.findById(id);
      remember(this.#users, id, user);
    }
    return user;
  }

  #permissionsOf(user: UserRecord): PermissionSet {
    let set = this.#userPermissions.get(user);
    if (set === undefined) {
      set = new Set(user.permissions);
      this.#userPermissions.set(user, set);
    }
    return set;
  }

  #recordUse(key: ApiKeyRecord, now: number): void {
    const last = this.#lastUsedWritten.get(key.id) ?? key.lastUsedAt ?? 0;
    if (now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    if (this.#lastUsedWritten.size >= LAST_USED_MEMORY_LIMIT) this.#lastUsedWritten.clear();
    this.#lastUsedWritten.set(key.id, now);
    this.#storage.apiKeys.touchLastUsed(key.id, now);
  }

  #refreshCaches(): void {
    const epoch = this.#storage.tracker.epoch();
    if (epoch === this.#cacheEpoch) return;
    this.#cacheEpoch = epoch;
    this.#users.clear();
    this.#keys.clear();
  }
}
