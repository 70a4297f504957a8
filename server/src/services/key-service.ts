/**
 * API keys: creation (the plaintext shown once), listing, updates, deletion and reveal. One's own
 * keys need `keys:create`; another user's need `keys:manage`, and changing or revealing them also
 * needs every permission their owner holds (a revealed key is its owner's power).
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors.js';
import { apiKeyDigest, apiKeyDisplayPrefix, generateApiKey } from '../crypto/api-key-format.js';
import type { KeyEncryption } from '../crypto/key-encryption.js';
import { holds, narrowPermissions, normalizePermissions, type Permission, type PermissionInput } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';
import type { ApiKeyChanges, ApiKeyRecord, KeyRateLimit, ModelPermission } from '../storage/api-keys-repository.js';
import { parseKeyExpiry } from './key-expiry.js';
import type { Storage } from '../storage/storage.js';
import { assertMayGrant, assertOutranks } from './access-rules.js';
import { assertKeyWithinCaller, boundedModelPermissions, defaultKeyPermissions } from './key-bounds.js';
import type { Changed } from './user-service.js';

/** What a caller asks for when creating a key. */
export interface NewKeyRequest {
  /** Null or absent for a generated name (the key's display prefix). */
  name?: string | null;
  description?: string | null;
  owner?: string;
  expiresAt?: string | null;
  modelPermissions?: readonly ModelPermission[];
  permissions?: readonly PermissionInput[] | null;
  rateLimit?: Partial<KeyRateLimit>;
}

/** What a caller asks to change on a key. */
export interface KeyUpdateRequest {
  /** Null leaves the name as it is (the reference web UI sends null for an emptied name). */
  name?: string | null;
  description?: string | null;
  enabled?: boolean;
  expiresAt?: string | null;
  modelPermissions?: readonly ModelPermission[];
  permissions?: readonly PermissionInput[] | null;
  /** The thresholds to change (a null clears one). */
  rateLimit?: Partial<KeyRateLimit>;
}

const everyModel: ModelPermission[] = [{ permission_type: 'all', permission_value: null }];
const keyNotFound = () => new ApiError('api_key_not_found', 'API key not found');

/** Manages API keys. */
export class KeyService {
  readonly #storage: Storage;
  readonly #encryption: KeyEncryption;

  constructor(storage: Storage, encryption: KeyEncryption) {
    this.#storage = storage;
    this.#encryption = encryption;
  }

  /** The fingerprint of the encryption key in use (decides `revealable`). */
  get encryptionKeyId(): string {
    return this.#encryption.keyId;
  }

  /** Creates a key and returns it with its plaintext. */
  create(caller: Principal, request: NewKeyRequest): Changed<{ record: ApiKeyRecord; plaintext: string }> {
    const ownerId = request.owner ?? caller.user?.id;
    if (ownerId === undefined) {
      throw new ApiError('invalid_request', 'Authentication is switched off: name the key\'s owner in "owner"', { param: 'owner' });
    }
    if (ownerId !== caller.user?.id) {
      if (!holds(caller.permissions, 'keys:manage')) {
        throw new ApiError('permission_denied', 'Creating a key for another user needs keys:manage', { param: 'owner' });
      }
      const owner = this.#storage.users.findById(ownerId);
      if (owner === null) throw new ApiError('user_not_found', 'The key\'s owner does not exist', { param: 'owner' });
      assertOutranks(caller.permissions, owner.permissions, 'The key\'s owner');
    }
    const { permissions, usedLegacyNames } = this.#keyPermissions(caller, request.permissions);
    const now = Date.now();
    const plaintext = generateApiKey();
    const keyPrefix = apiKeyDisplayPrefix(plaintext);
    const id = randomUUID();
    this.#storage.apiKeys.create({
      id,
      userId: ownerId,
      digest: apiKeyDigest(plaintext),
      keyPrefix,
      ciphertext: this.#encryption.encrypt(plaintext, id),
      encryptionKeyId: this.#encryption.keyId,
      name: request.name ?? keyPrefix,
      description: request.description ?? null,
      expiresAt: futureTime(request.expiresAt ?? null, now),
      modelPermissions: boundedModelPermissions(caller, request.modelPermissions, everyModel),
      permissions,
      rateLimit: {
        maxFailures: ownThreshold(request.rateLimit?.maxFailures),
        windowSeconds: ownThreshold(request.rateLimit?.windowSeconds),
        banSeconds: ownThreshold(request.rateLimit?.banSeconds),
      },
      now,
    });
    return { value: { record: this.#mustFind(id), plaintext }, usedLegacyNames };
  }

  /** The keys the caller may see: everyone's (or `ownerId`'s) with `keys:manage`, else their own. */
  list(caller: Principal, ownerId: string | undefined): ApiKeyRecord[] {
    if (holds(caller.permissions, 'keys:manage')) return this.#storage.apiKeys.list(ownerId ?? null);
    const self = caller.user?.id;
    if (self === undefined) return [];
    if (ownerId !== undefined && ownerId !== self) {
      throw new ApiError('permission_denied', 'Listing another user\'s keys needs keys:manage', { param: 'owner' });
    }
    return this.#storage.apiKeys.list(self);
  }

  /** A key the caller may see, or 404. */
  get(caller: Principal, id: string): ApiKeyRecord {
    return this.#visible(caller, id);
  }

  /** Changes a key. Model restrictions, once set, change only with `keys:manage`. */
  update(caller: Principal, id: string, request: KeyUpdateRequest): Changed<ApiKeyRecord> {
    const key = this.#changeable(caller, id);
    const changes: ApiKeyChanges = {};
    if (request.name !== undefined && request.name !== null) changes.name = request.name;
    if (request.rateLimit?.maxFailures !== undefined) changes.rateLimitMaxFailures = ownThreshold(request.rateLimit.maxFailures);
    if (request.rateLimit?.windowSeconds !== undefined) changes.rateLimitWindowSeconds = ownThreshold(request.rateLimit.windowSeconds);
    if (request.rateLimit?.banSeconds !== undefined) changes.rateLimitBanSeconds = ownThreshold(request.rateLimit.banSeconds);
    if (request.description !== undefined) changes.description = request.description;
    if (request.enabled !== undefined) changes.enabled = request.enabled;
    if (request.expiresAt !== undefined) changes.expiresAt = futureTime(request.expiresAt, Date.now());
    if (request.modelPermissions !== undefined) {
      if (!holds(caller.permissions, 'keys:manage')) {
        throw new ApiError('permission_denied', 'Changing a key\'s model restrictions needs keys:manage', { param: 'model_permissions' });
      }
      // An empty list allows nothing: always within bounds.
      changes.modelPermissions = request.modelPermissions.length === 0 ? [] : boundedModelPermissions(caller, request.modelPermissions, request.modelPermissions);
    }
    let usedLegacyNames = false;
    if (request.permissions !== undefined) {
      const narrowed = this.#keyPermissions(caller, request.permissions);
      changes.permissions = narrowed.permissions;
      usedLegacyNames = narrowed.usedLegacyNames;
    }
    this.#storage.apiKeys.update(key.id, changes, Date.now());
    return { value: this.#mustFind(key.id), usedLegacyNames };
  }

  /** Deletes a key; it fails on its next request. */
  delete(caller: Principal, id: string): void {
    const key = this.#changeable(caller, id);
    this.#storage.transaction(() => {
      this.#storage.apiKeys.keepTombstones({ keyId: key.id }, Date.now());
      this.#storage.apiKeys.delete(key.id);
    });
  }

  /** The plaintext of a key, when it was encrypted with the encryption key in use. */
  reveal(caller: Principal, id: string): string {
    const key = this.#changeable(caller, id);
    const opened = this.#encryption.decrypt(key.ciphertext, key.id, key.encryptionKeyId);
    if ('plaintext' in opened) return opened.plaintext;
    if (opened.failure === 'other_key') {
      throw new ApiError(
        'encryption_key_mismatch',
        'This key was encrypted with a different encryption key and cannot be revealed; it still authenticates',
      );
    }
    throw new ApiError('api_key_undecryptable', 'This key\'s stored ciphertext is damaged and cannot be revealed; it still authenticates');
  }

  #keyPermissions(caller: Principal, input: readonly PermissionInput[] | null | undefined): { permissions: Permission[] | null; usedLegacyNames: boolean } {
    if (input === undefined || input === null) return { permissions: defaultKeyPermissions(caller), usedLegacyNames: false };
    const normalized = normalizePermissions(input);
    assertMayGrant(caller.permissions, normalized.permissions);
    return normalized;
  }

  /** Own keys are visible; others' only with keys:manage (404 otherwise, hiding their existence). */
  #visible(caller: Principal, id: string): ApiKeyRecord {
    const key = this.#storage.apiKeys.findById(id);
    if (key === null) throw keyNotFound();
    if (key.userId !== caller.user?.id && !holds(caller.permissions, 'keys:manage')) throw keyNotFound();
    return key;
  }

  #changeable(caller: Principal, id: string): ApiKeyRecord {
    const key = this.#visible(caller, id);
    const owner = this.#storage.users.findById(key.userId);
    if (key.userId !== caller.user?.id) assertOutranks(caller.permissions, owner?.permissions ?? [], 'The key\'s owner');
    // A key cannot widen itself or a sibling: it changes or reveals only keys within its own bounds.
    assertKeyWithinCaller(caller, narrowPermissions(new Set(owner?.permissions ?? []), key.permissions), key.modelPermissions);
    return key;
  }

  #mustFind(id: string): ApiKeyRecord {
    const key = this.#storage.apiKeys.findById(id);
    if (key === null) throw keyNotFound();
    return key;
  }
}

/** A threshold as stored: 0 (which the reference server reads as "none") is stored as null. */
function ownThreshold(value: number | null | undefined): number | null {
  return value === undefined || value === null || value === 0 ? null : value;
}

function futureTime(iso: string | null, now: number): number | null {
  if (iso === null) return null;
  const time = parseKeyExpiry(iso);
  if (!(time > now)) throw new ApiError('invalid_request', 'expires_at must be a time in the future', { param: 'expires_at' });
  return time;
}
