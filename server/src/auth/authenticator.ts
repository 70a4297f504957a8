/**
 * Turns an `Authorization` header into a {@link Principal}, or an {@link ApiError} saying why not.
 * Users and keys are read live from the database; the in-process caches are dropped whenever the
 * storage's change feed reports a change of the `access` domain by this or any other process, so a
 * revocation applies to the next request everywhere.
 *
 * The hot path (a credential seen before, caches current) answers synchronously when the change
 * feed does (SQLite); a cache miss or an asynchronous feed answers with a promise.
 */
import { ApiError } from '../errors.js';
import type { AccessClaims, AccessTokenFailure, AccessTokens } from '../crypto/access-tokens.js';
import { apiKeyDigestBase64, apiKeyShape } from '../crypto/api-key-format.js';
import { BackgroundWrites } from '../runtime/background-writes.js';
import type { Clock } from '../runtime/clock.js';
import type { Epochs, Storage } from '../storage/port/index.js';
import { narrowPermissions, type PermissionSet } from './permissions.js';
import type { Principal } from './principal.js';
import { apiKeyFromStore, userOrNull, type ApiKeyRecord, type UserRecord } from './records.js';

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

/** A digest that matches no key: `revoked` when it is the digest of a deleted key (a tombstone). */
type UnknownKey = 'unknown' | 'revoked';

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
  readonly #keys = new Map<string, CachedKey | UnknownKey>();
  readonly #userPermissions = new WeakMap<UserRecord, PermissionSet>();
  readonly #lastUsedWritten = new Map<string, number>();
  readonly #clock: Clock;
  readonly #backgroundWrites: BackgroundWrites;
  #cacheEpoch = Number.NaN;

  /** @param backgroundWrites - where the best-effort writes of `last_used_at` are tracked. */
  constructor(storage: Storage, accessTokens: AccessTokens, clock: Clock, backgroundWrites = new BackgroundWrites()) {
    this.#storage = storage;
    this.#accessTokens = accessTokens;
    this.#clock = clock;
    this.#backgroundWrites = backgroundWrites;
    storage.changes.onChange((domain) => {
      if (domain !== 'access') return;
      // Also forget the epoch, so a lookup that was in flight does not remember what it read before the change.
      this.#cacheEpoch = Number.NaN;
      this.#dropCaches();
    });
  }

  /**
   * Authenticates the raw header value. Answers synchronously when the credential was seen before
   * (the hot path), with a promise when a token signature must be checked.
   *
   * @param epochs - the change feed's epochs the request pipeline read once for this request; without
   *   them the authenticator reads its own.
   * @throws {ApiError} 400 for a malformed header, 401 for missing or failed credentials.
   */
  authenticate(header: string | undefined, epochs?: Epochs | Promise<Epochs>): Principal | Promise<Principal> {
    if (header === undefined || header === '') {
      throw new ApiError('missing_credentials', 'Not authenticated: send Authorization: Bearer <access token or API key>');
    }
    const match = BEARER.exec(header);
    if (match === null) {
      throw new ApiError('malformed_authorization_header', 'Malformed Authorization header: expected "Bearer <access token or API key>"');
    }
    const credential = match[1] as string;
    return credential.startsWith('sk-') ? this.#authenticateKey(credential, epochs) : this.#authenticateToken(credential, epochs);
  }

  #authenticateToken(token: string, epochs: Epochs | Promise<Epochs> | undefined): Principal | Promise<Principal> {
    const known = this.#accessTokens.verifyKnown(token);
    if (known !== undefined) return this.#principalForClaims(known, epochs);
    return this.#accessTokens.verify(token).then((claims) => this.#principalForClaims(claims, epochs));
  }

  #principalForClaims(claims: AccessClaims | { failure: AccessTokenFailure }, epochs: Epochs | Promise<Epochs> | undefined): Principal | Promise<Principal> {
    if ('failure' in claims) {
      throw claims.failure === 'expired'
        ? new ApiError('token_expired', 'Access token has expired; refresh it or log in again')
        : new ApiError('invalid_token', 'Invalid access token');
    }
    const refreshed = this.#refreshCaches(epochs);
    // Once: an asynchronous feed (PostgreSQL) answers with a promise every time.
    if (refreshed !== null) return refreshed.then(() => this.#principalForCurrentClaims(claims));
    return this.#principalForCurrentClaims(claims);
  }

  /** {@link #principalForClaims} once the caches are current. */
  #principalForCurrentClaims(claims: AccessClaims): Principal | Promise<Principal> {
    const user = this.#user(claims.userId);
    if (user instanceof Promise) return user.then((loaded) => this.#jwtPrincipal(claims, loaded));
    return this.#jwtPrincipal(claims, user);
  }

  #jwtPrincipal(claims: AccessClaims, user: UserRecord | null): Principal {
    if (user === null || user.tokenVersion !== claims.tokenVersion) {
      throw new RevokedCredentialError('invalid_token', 'Access token is no longer valid; log in again');
    }
    if (!user.enabled) throw new ApiError('account_disabled', 'This account is disabled');
    return { authType: 'jwt', user, apiKey: null, permissions: this.#permissionsOf(user) };
  }

  #authenticateKey(presented: string, epochs: Epochs | Promise<Epochs> | undefined): Principal | Promise<Principal> {
    const digest = apiKeyDigestBase64(presented);
    // A mistyped or made-up key is refused by its checksum before anything touches the database. A
    // cached digest belongs to a key that passed that check already (same digest, same key).
    if (!this.#keys.has(digest) && apiKeyShape(presented) === 'malformed') throw new ApiError('invalid_api_key', 'Invalid API key');
    return this.#keyPrincipal(digest, epochs);
  }

  #keyPrincipal(digest: string, epochs: Epochs | Promise<Epochs> | undefined): Principal | Promise<Principal> {
    const refreshed = this.#refreshCaches(epochs);
    // Once: an asynchronous feed (PostgreSQL) answers with a promise every time.
    if (refreshed !== null) return refreshed.then(() => this.#currentKeyPrincipal(digest));
    return this.#currentKeyPrincipal(digest);
  }

  /** {@link #keyPrincipal} once the caches are current. */
  #currentKeyPrincipal(digest: string): Principal | Promise<Principal> {
    const cached = this.#keys.get(digest);
    if (cached === undefined) return this.#loadKey(digest).then((loaded) => this.#admitKey(loaded));
    return this.#admitKey(cached);
  }

  #admitKey(cached: CachedKey | UnknownKey): Principal {
    if (cached === 'revoked') throw new RevokedCredentialError('invalid_api_key', 'Invalid API key');
    if (cached === 'unknown' || cached.owner === null) throw new ApiError('invalid_api_key', 'Invalid API key');
    const { key, owner } = cached;
    if (!key.enabled) throw new ApiError('api_key_disabled', 'This API key is disabled');
    const now = this.#clock.now();
    if (key.expiresAt !== null && key.expiresAt <= now) throw new ApiError('api_key_expired', 'This API key has expired');
    if (!owner.enabled) throw new ApiError('account_disabled', 'The account that owns this API key is disabled');
    this.#recordUse(key, now);
    return { authType: 'api_key', user: owner, apiKey: key, permissions: narrowPermissions(this.#permissionsOf(owner), key.permissions) };
  }

  /**
   * Reads a key and its owner (a miss), remembering them unless the caches were dropped meanwhile.
   * A digest that matches no key is looked up among the deleted ones (their tombstones).
   */
  async #loadKey(digest: string): Promise<CachedKey | UnknownKey> {
    const epoch = this.#cacheEpoch;
    const bytes = Buffer.from(digest, 'base64');
    const stored = await this.#storage.keys.findByDigest(bytes);
    const loaded: CachedKey | UnknownKey =
      stored === null ? ((await this.#storage.keys.isRevoked(bytes)) ? 'revoked' : 'unknown') : { key: apiKeyFromStore(stored), owner: await this.#user(stored.userId) };
    // Only what was read under the current epoch may be remembered.
    if (epoch === this.#cacheEpoch) remember(this.#keys, digest, loaded);
    return loaded;
  }

  /** The user `id` from the cache, or a promise of reading it into the cache (a miss). */
  #user(id: string): UserRecord | null | Promise<UserRecord | null> {
    const user = this.#users.get(id);
    if (user !== undefined) return user;
    const epoch = this.#cacheEpoch;
    return this.#storage.users.findById(id).then((stored) => {
      const record = userOrNull(stored);
      if (epoch === this.#cacheEpoch) remember(this.#users, id, record);
      return record;
    });
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
    // Best effort: a failed write of `last_used_at` never fails the request it describes.
    this.#backgroundWrites.track(this.#storage.keys.touchLastUsed(key.id, now));
  }

  /**
   * Drops the caches when the `access` epoch moved: by `given` (the epochs the request pipeline read
   * once for this request), else by a reading of its own. Null when that was decided synchronously
   * (the hot path); otherwise a promise of the decision.
   *
   * @throws {StorageUnavailableError} when currency cannot be checked: the request fails closed (503).
   */
  #refreshCaches(given?: Epochs | Promise<Epochs>): Promise<void> | null {
    const epochs = given ?? this.#storage.changes.current();
    if (epochs instanceof Promise) return epochs.then((resolved) => this.#applyEpochs(resolved));
    this.#applyEpochs(epochs);
    return null;
  }

  #applyEpochs(epochs: Epochs): void {
    if (epochs.access === this.#cacheEpoch) return;
    this.#cacheEpoch = epochs.access;
    this.#dropCaches();
  }

  #dropCaches(): void {
    this.#users.clear();
    this.#keys.clear();
  }
}
