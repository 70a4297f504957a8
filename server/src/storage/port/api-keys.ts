/** The API keys aggregate of the storage port. */

/** One entry of a key's model restrictions (`all`, `model_id` or `model_type`). */
export interface ModelRestriction {
  type: string;
  value: string | null;
}

/**
 * A key's own brute-force thresholds (the reference server's `rate_limit_*` fields); each null
 * falls back to the global `key` setting, and without `maxFailures` the key has none of its own.
 */
export interface KeyRateLimit {
  maxFailures: number | null;
  windowSeconds: number | null;
  banSeconds: number | null;
}

/** A stored key: never the plaintext; its digest is the lookup handle, its ciphertext the reveal. */
export interface ApiKeyRecord {
  id: string;
  /** The SHA-256 of the plaintext (the lookup digest). */
  digest: Buffer;
  userId: string;
  ownerUsername: string;
  keyPrefix: string;
  ciphertext: Buffer;
  encryptionKeyId: string;
  name: string;
  description: string | null;
  enabled: boolean;
  expiresAt: number | null;
  lastUsedAt: number | null;
  modelRestrictions: readonly ModelRestriction[];
  /** Narrowed permissions, or `null` for the owner's live set. */
  permissions: readonly string[] | null;
  rateLimit: KeyRateLimit;
  /** The key's usage limits as stored JSON (the contract's `UsageLimits`, issue 17), or null for none of its own. */
  limitsJson: string | null;
  createdAt: number;
  updatedAt: number;
}

/** What {@link ApiKeyStore.create} stores. */
export interface NewApiKey {
  id: string;
  userId: string;
  digest: Buffer;
  keyPrefix: string;
  ciphertext: Buffer;
  encryptionKeyId: string;
  name: string;
  description: string | null;
  expiresAt: number | null;
  modelRestrictions: readonly ModelRestriction[];
  permissions: readonly string[] | null;
  rateLimit: KeyRateLimit;
  /** The key's usage limits as JSON; absent or null for none of its own. */
  limitsJson?: string | null;
  now: number;
}

/** The fields an update may change. */
export type ApiKeyChanges = Partial<Pick<ApiKeyRecord, 'name' | 'description' | 'enabled' | 'expiresAt' | 'modelRestrictions' | 'permissions' | 'limitsJson'>> & {
  /** Each threshold changes alone; an absent one is kept. */
  rateLimit?: Partial<KeyRateLimit>;
};

/** API keys. */
export interface ApiKeyStore {
  /** The hot path on a cache miss: one indexed lookup whose cost does not grow with the table. */
  findByDigest(digest: Buffer): Promise<ApiKeyRecord | null>;
  findById(id: string): Promise<ApiKeyRecord | null>;
  /** Every key, or those of one owner. */
  list(ownerId: string | null): Promise<ApiKeyRecord[]>;
  count(): Promise<number>;
  /** `'owner_missing'` when the owner was deleted meanwhile. */
  create(key: NewApiKey): Promise<'created' | 'owner_missing'>;
  update(id: string, changes: ApiKeyChanges, now: number): Promise<boolean>;
  replaceCiphertext(id: string, ciphertext: Buffer, encryptionKeyId: string, now: number): Promise<void>;
  delete(id: string): Promise<boolean>;
  /**
   * Keeps the lookup digests of the key `keyId`, or of every key of the user `userId`, as
   * tombstones: call before deleting them, in the same transaction. A deleted key presented later
   * is then known as one the server issued and revoked, not a guess. Tombstones are never pruned:
   * a row is a 32-byte digest, and a stale client may keep sending a key for years.
   */
  keepTombstones(owner: { keyId: string } | { userId: string }, now: number): Promise<void>;
  /** True when `digest` is the lookup digest of a key that was deleted. */
  isRevoked(digest: Buffer): Promise<boolean>;
  /** Never invalidates caches on either backend. */
  touchLastUsed(id: string, now: number): Promise<void>;
}
