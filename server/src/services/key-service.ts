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
import { apiKeyOrNull, modelRestrictions, userOrNull, type ApiKeyRecord, type ModelPermission } from '../auth/records.js';
import type { Clock } from '../runtime/clock.js';
import type { ApiKeyChanges, KeyRateLimit, RowLock, Storage, StorageTx } from '../storage/port/index.js';
import { parseKeyExpiry } from './key-expiry.js';
import { assertMayGrant, assertOutranks } from './access-rules.js';
import { assertKeyWithinCaller, boundedModelPermissions, defaultKeyPermissions } from './key-bounds.js';
import { keyLimitsWithinOwner, newKeyLimits } from './key-limits.js';
import { defaultKeyLimitsOf, parseStoredSettings } from '../brute-force/security-settings.js';
import { noLimits, storedLimits, type UsageLimitsWire } from '../limits/usage-limits.js';
import type { Changed } from './user-service.js';

export type { KeyRateLimit } from '../storage/port/index.js';

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
  /** The key's usage limits; null for none; absent for the server-wide default (lowered to the owner's). */
  limits?: UsageLimitsWire | null;
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
  /** Replaces the key's usage limits (null: none of its own); never above the owner's. */
  limits?: UsageLimitsWire | null;
}

const everyModel: ModelPermission[] = [{ permission_type: 'all', permission_value: null }];
const keyNotFound = () => new ApiError('api_key_not_found', 'API key not found');

/** Manages API keys. */
export class KeyService {
  readonly #storage: Storage;
  readonly #encryption: KeyEncryption;
  readonly #clock: Clock;

  constructor(storage: Storage, encryption: KeyEncryption, clock: Clock) {
    this.#storage = storage;
    this.#encryption = encryption;
    this.#clock = clock;
  }

  /** The fingerprint of the encryption key in use (decides `revealable`). */
  get encryptionKeyId(): string {
    return this.#encryption.keyId;
  }

  /** Creates a key and returns it with its plaintext. */
  async create(caller: Principal, request: NewKeyRequest): Promise<Changed<{ record: ApiKeyRecord; plaintext: string }>> {
    const ownerId = request.owner ?? caller.user?.id;
    if (ownerId === undefined) {
      throw new ApiError('invalid_request', 'Authentication is switched off: name the key\'s owner in "owner"', { param: 'owner' });
    }
    const forAnother = ownerId !== caller.user?.id;
    if (forAnother) {
      if (!holds(caller.permissions, 'keys:manage')) {
        throw new ApiError('permission_denied', 'Creating a key for another user needs keys:manage', { param: 'owner' });
      }
      await assertMayCreateFor(this.#storage, caller, ownerId);
    }
    const { permissions, usedLegacyNames } = this.#keyPermissions(caller, request.permissions);
    const now = this.#clock.now();
    const expiresAt = futureTime(request.expiresAt ?? null, now);
    const plaintext = generateApiKey();
    const keyPrefix = apiKeyDisplayPrefix(plaintext);
    const id = randomUUID();
    const newKey = {
      id,
      userId: ownerId,
      digest: apiKeyDigest(plaintext),
      keyPrefix,
      ciphertext: this.#encryption.encrypt(plaintext, id),
      encryptionKeyId: this.#encryption.keyId,
      name: request.name ?? keyPrefix,
      description: request.description ?? null,
      expiresAt,
      modelRestrictions: modelRestrictions(boundedModelPermissions(caller, request.modelPermissions, everyModel)),
      permissions,
      rateLimit: {
        maxFailures: ownThreshold(request.rateLimit?.maxFailures),
        windowSeconds: ownThreshold(request.rateLimit?.windowSeconds),
        banSeconds: ownThreshold(request.rateLimit?.banSeconds),
      },
      now,
    };
    const outcome = await this.#storage.transaction(async (tx) => {
      // Checked again with the owner's row share-locked, so a change of their permissions cannot slip in between.
      if (forAnother) await assertMayCreateFor(tx, caller, ownerId, { lock: 'share' });
      const owner = userOrNull(await tx.users.findById(ownerId));
      if (owner === null) return 'owner_missing';
      const serverDefault = defaultKeyLimitsOf(parseStoredSettings(await tx.settings.read()));
      return tx.keys.create({ ...newKey, limitsJson: storedLimits(newKeyLimits(request.limits, serverDefault, owner.limits)) });
    });
    if (outcome === 'owner_missing') throw ownerMissing();
    return { value: { record: await mustFind(this.#storage, id), plaintext }, usedLegacyNames };
  }

  /** The keys the caller may see: everyone's (or `ownerId`'s) with `keys:manage`, else their own. */
  async list(caller: Principal, ownerId: string | undefined): Promise<ApiKeyRecord[]> {
    if (holds(caller.permissions, 'keys:manage')) return this.#list(ownerId ?? null);
    const self = caller.user?.id;
    if (self === undefined) return [];
    if (ownerId !== undefined && ownerId !== self) {
      throw new ApiError('permission_denied', 'Listing another user\'s keys needs keys:manage', { param: 'owner' });
    }
    return this.#list(self);
  }

  async #list(ownerId: string | null): Promise<ApiKeyRecord[]> {
    return (await this.#storage.keys.list(ownerId)).map((key) => apiKeyOrNull(key) as ApiKeyRecord);
  }

  /** A key the caller may see, or 404. */
  get(caller: Principal, id: string): Promise<ApiKeyRecord> {
    return this.#visible(this.#storage, caller, id);
  }

  /** Changes a key. Model restrictions, once set, change only with `keys:manage`. */
  async update(caller: Principal, id: string, request: KeyUpdateRequest): Promise<Changed<ApiKeyRecord>> {
    await this.#changeable(this.#storage, caller, id);
    const changes: ApiKeyChanges = {};
    if (request.name !== undefined && request.name !== null) changes.name = request.name;
    if (request.rateLimit !== undefined) {
      const { maxFailures, windowSeconds, banSeconds } = request.rateLimit;
      changes.rateLimit = {};
      if (maxFailures !== undefined) changes.rateLimit.maxFailures = ownThreshold(maxFailures);
      if (windowSeconds !== undefined) changes.rateLimit.windowSeconds = ownThreshold(windowSeconds);
      if (banSeconds !== undefined) changes.rateLimit.banSeconds = ownThreshold(banSeconds);
    }
    if (request.description !== undefined) changes.description = request.description;
    if (request.enabled !== undefined) changes.enabled = request.enabled;
    if (request.expiresAt !== undefined) changes.expiresAt = futureTime(request.expiresAt, this.#clock.now());
    if (request.modelPermissions !== undefined) {
      if (!holds(caller.permissions, 'keys:manage')) {
        throw new ApiError('permission_denied', 'Changing a key\'s model restrictions needs keys:manage', { param: 'model_permissions' });
      }
      // An empty list allows nothing: always within bounds.
      changes.modelRestrictions = modelRestrictions(request.modelPermissions.length === 0 ? [] : boundedModelPermissions(caller, request.modelPermissions, request.modelPermissions));
    }
    let usedLegacyNames = false;
    if (request.permissions !== undefined) {
      const narrowed = this.#keyPermissions(caller, request.permissions);
      changes.permissions = narrowed.permissions;
      usedLegacyNames = narrowed.usedLegacyNames;
    }
    const now = this.#clock.now();
    await this.#storage.transaction(async (tx) => {
      const key = await this.#changeable(tx, caller, id);
      if (request.limits !== undefined) {
        const owner = userOrNull(await tx.users.findById(key.userId));
        changes.limitsJson = storedLimits(keyLimitsWithinOwner(request.limits, owner?.limits ?? noLimits));
      }
      await tx.keys.update(key.id, changes, now);
    });
    return { value: await mustFind(this.#storage, id), usedLegacyNames };
  }

  /** Deletes a key; it fails on its next request. */
  async delete(caller: Principal, id: string): Promise<void> {
    const now = this.#clock.now();
    await this.#storage.transaction(async (tx) => {
      const key = await this.#changeable(tx, caller, id);
      await tx.keys.keepTombstones({ keyId: key.id }, now);
      await tx.keys.delete(key.id);
    });
  }

  /** The plaintext of a key, when it was encrypted with the encryption key in use. */
  async reveal(caller: Principal, id: string): Promise<string> {
    const key = await this.#storage.transaction((tx) => this.#changeable(tx, caller, id));
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
  async #visible(stores: Pick<StorageTx, 'keys'>, caller: Principal, id: string): Promise<ApiKeyRecord> {
    const key = await mustFind(stores, id);
    if (key.userId !== caller.user?.id && !holds(caller.permissions, 'keys:manage')) throw keyNotFound();
    return key;
  }

  /**
   * A key the caller may change: another user's only when the caller holds all its owner holds (the
   * owner's row share-locked); and a key cannot widen itself or a sibling: it changes or reveals
   * only keys within its own bounds.
   */
  async #changeable(stores: Pick<StorageTx, 'keys' | 'users'>, caller: Principal, id: string): Promise<ApiKeyRecord> {
    const key = await this.#visible(stores, caller, id);
    const owner = userOrNull(await stores.users.findById(key.userId, { lock: 'share' }));
    if (key.userId !== caller.user?.id) assertOutranks(caller.permissions, owner?.permissions ?? [], 'The key\'s owner');
    assertKeyWithinCaller(caller, narrowPermissions(new Set(owner?.permissions ?? []), key.permissions), key.modelPermissions);
    return key;
  }
}

const ownerMissing = () => new ApiError('user_not_found', 'The key\'s owner does not exist', { param: 'owner' });

/** Refuses a key for `ownerId` unless the owner exists and the caller holds everything they hold. */
async function assertMayCreateFor(stores: Pick<StorageTx, 'users'>, caller: Principal, ownerId: string, lock: RowLock = {}): Promise<void> {
  const owner = userOrNull(await stores.users.findById(ownerId, lock));
  if (owner === null) throw ownerMissing();
  assertOutranks(caller.permissions, owner.permissions, 'The key\'s owner');
}

async function mustFind(stores: Pick<StorageTx, 'keys'>, id: string): Promise<ApiKeyRecord> {
  const key = apiKeyOrNull(await stores.keys.findById(id));
  if (key === null) throw keyNotFound();
  return key;
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
