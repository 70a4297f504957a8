/**
 * API keys. The only module that writes SQL for the `api_keys` table. The plaintext is never
 * stored: lookup is by SHA-256 digest, reveal decrypts `ciphertext`.
 */
import type { Statement } from 'better-sqlite3';
import type { Permission } from '../auth/permissions.js';
import type { components } from '../generated/openapi.js';
import type { ChangeTracker } from './change-tracker.js';
import type { Database } from './database.js';

/** One model restriction of a key. */
export type ModelPermission = components['schemas']['ModelPermission'];

/**
 * A key's own brute-force thresholds (the reference server's `rate_limit_*` fields); each null
 * falls back to the global `key` setting, and without `maxFailures` the key has none of its own.
 */
export interface KeyRateLimit {
  maxFailures: number | null;
  windowSeconds: number | null;
  banSeconds: number | null;
}

/** An API key as stored (without its plaintext). */
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
  modelPermissions: ModelPermission[];
  permissions: Permission[] | null;
  rateLimit: KeyRateLimit;
  createdAt: number;
  updatedAt: number;
}

/** The fields of a new key. */
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
  modelPermissions: readonly ModelPermission[];
  permissions: readonly Permission[] | null;
  rateLimit: KeyRateLimit;
  now: number;
}

/** The fields an update may change. */
export interface ApiKeyChanges {
  name?: string;
  description?: string | null;
  enabled?: boolean;
  expiresAt?: number | null;
  modelPermissions?: readonly ModelPermission[];
  permissions?: readonly Permission[] | null;
  rateLimitMaxFailures?: number | null;
  rateLimitWindowSeconds?: number | null;
  rateLimitBanSeconds?: number | null;
}

interface ApiKeyRow {
  key_hash: Buffer;
  id: string;
  user_id: string;
  owner_username: string;
  key_prefix: string;
  ciphertext: Buffer;
  encryption_key_id: string;
  name: string;
  description: string | null;
  enabled: number;
  expires_at: number | null;
  last_used_at: number | null;
  model_permissions: string;
  permissions: string | null;
  rate_limit_max_failures: number | null;
  rate_limit_window_seconds: number | null;
  rate_limit_ban_seconds: number | null;
  created_at: number;
  updated_at: number;
}

const SELECT_KEY = `
  SELECT k.key_hash, k.id, k.user_id, u.username AS owner_username, k.key_prefix, k.ciphertext, k.encryption_key_id,
         k.name, k.description, k.enabled, k.expires_at, k.last_used_at, k.model_permissions, k.permissions,
         k.rate_limit_max_failures, k.rate_limit_window_seconds, k.rate_limit_ban_seconds, k.created_at, k.updated_at
  FROM api_keys k JOIN users u ON u.id = k.user_id`;

const columnOf: Record<keyof ApiKeyChanges, string> = {
  name: 'name',
  description: 'description',
  enabled: 'enabled',
  expiresAt: 'expires_at',
  modelPermissions: 'model_permissions',
  permissions: 'permissions',
  rateLimitMaxFailures: 'rate_limit_max_failures',
  rateLimitWindowSeconds: 'rate_limit_window_seconds',
  rateLimitBanSeconds: 'rate_limit_ban_seconds',
};

/** Reads and writes API keys. Every write except `touchLastUsed` marks the change tracker. */
export class ApiKeysRepository {
  readonly #db: Database;
  readonly #tracker: ChangeTracker;
  readonly #byDigest: Statement<[Buffer], ApiKeyRow>;
  readonly #byId: Statement<[string], ApiKeyRow>;
  readonly #touch: Statement<[number, string]>;

  constructor(db: Database, tracker: ChangeTracker) {
    this.#db = db;
    this.#tracker = tracker;
    this.#byDigest = db.prepare(`${SELECT_KEY} WHERE k.key_hash = ?`);
    this.#byId = db.prepare(`${SELECT_KEY} WHERE k.id = ?`);
    this.#touch = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
  }

  findByDigest(digest: Buffer): ApiKeyRecord | null {
    const row = this.#byDigest.get(digest);
    return row === undefined ? null : toRecord(row);
  }

  findById(id: string): ApiKeyRecord | null {
    const row = this.#byId.get(id);
    return row === undefined ? null : toRecord(row);
  }

  /** Keys, newest first; only `ownerId`'s when given. */
  list(ownerId: string | null): ApiKeyRecord[] {
    const rows =
      ownerId === null
        ? this.#db.prepare<[], ApiKeyRow>(`${SELECT_KEY} ORDER BY k.created_at DESC, k.id`).all()
        : this.#db.prepare<[string], ApiKeyRow>(`${SELECT_KEY} WHERE k.user_id = ? ORDER BY k.created_at DESC, k.id`).all(ownerId);
    return rows.map(toRecord);
  }

  /** How many keys are stored encrypted (under any encryption key). */
  count(): number {
    return (this.#db.prepare('SELECT count(*) FROM api_keys').pluck().get() as number | undefined) ?? 0;
  }

  create(key: NewApiKey): void {
    this.#db
      .prepare(
        `INSERT INTO api_keys (id, user_id, key_hash, key_prefix, ciphertext, encryption_key_id, name, description,
           enabled, expires_at, last_used_at, model_permissions, permissions,
           rate_limit_max_failures, rate_limit_window_seconds, rate_limit_ban_seconds, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, NULL, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        key.id,
        key.userId,
        key.digest,
        key.keyPrefix,
        key.ciphertext,
        key.encryptionKeyId,
        key.name,
        key.description,
        key.expiresAt,
        JSON.stringify(key.modelPermissions),
        key.permissions === null ? null : JSON.stringify(key.permissions),
        key.rateLimit.maxFailures,
        key.rateLimit.windowSeconds,
        key.rateLimit.banSeconds,
        key.now,
        key.now,
      );
    this.#tracker.markChanged();
  }

  /** Applies `changes` to a key. */
  update(id: string, changes: ApiKeyChanges, now: number): void {
    const assignments: string[] = [];
    const values: unknown[] = [];
    for (const [field, value] of Object.entries(changes) as [keyof ApiKeyChanges, ApiKeyChanges[keyof ApiKeyChanges]][]) {
      if (value === undefined) continue;
      assignments.push(`${columnOf[field]} = ?`);
      values.push(toColumnValue(field, value));
    }
    assignments.push('updated_at = ?');
    values.push(now, id);
    this.#db.prepare(`UPDATE api_keys SET ${assignments.join(', ')} WHERE id = ?`).run(...values);
    this.#tracker.markChanged();
  }

  /** Stores a new ciphertext of the same plaintext (re-encrypted under another encryption key). */
  replaceCiphertext(id: string, ciphertext: Buffer, encryptionKeyId: string, now: number): void {
    this.#db.prepare('UPDATE api_keys SET ciphertext = ?, encryption_key_id = ?, updated_at = ? WHERE id = ?').run(ciphertext, encryptionKeyId, now, id);
    this.#tracker.markChanged();
  }

  /**
   * Keeps the lookup digests of the key `keyId`, or of every key of the user `userId`, as
   * tombstones: call before deleting them, in the same transaction. A deleted key presented later
   * is then known as one the server issued and revoked, not a guess. Tombstones are never pruned:
   * a row is a 32-byte digest, and a stale client may keep sending a key for years.
   */
  keepTombstones(owner: { keyId: string } | { userId: string }, now: number): void {
    const [column, value] = 'keyId' in owner ? ['id', owner.keyId] : ['user_id', owner.userId];
    this.#db
      .prepare(
        `INSERT INTO revoked_api_keys (key_hash, key_id, revoked_at) SELECT key_hash, id, ? FROM api_keys WHERE ${column} = ?
         ON CONFLICT (key_hash) DO NOTHING`,
      )
      .run(now, value);
  }

  /** True when `digest` is the lookup digest of a key that was deleted. */
  isRevoked(digest: Buffer): boolean {
    return this.#db.prepare<[Buffer], { one: number }>('SELECT 1 AS one FROM revoked_api_keys WHERE key_hash = ?').get(digest) !== undefined;
  }

  delete(id: string): void {
    this.#db.prepare('DELETE FROM api_keys WHERE id = ?').run(id);
    this.#tracker.markChanged();
  }

  /**
   * Records a use of the key. Deliberately does not mark the tracker: `last_used_at` is not
   * something any cache decides on.
   */
  touchLastUsed(id: string, now: number): void {
    this.#touch.run(now, id);
  }
}

function toColumnValue(field: keyof ApiKeyChanges, value: ApiKeyChanges[keyof ApiKeyChanges]): unknown {
  if (field === 'enabled') return value ? 1 : 0;
  if (field === 'modelPermissions') return JSON.stringify(value);
  if (field === 'permissions') return value === null ? null : JSON.stringify(value);
  return value;
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    digest: row.key_hash,
    userId: row.user_id,
    ownerUsername: row.owner_username,
    keyPrefix: row.key_prefix,
    ciphertext: row.ciphertext,
    encryptionKeyId: row.encryption_key_id,
    name: row.name,
    description: row.description,
    enabled: row.enabled === 1,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    modelPermissions: JSON.parse(row.model_permissions) as ModelPermission[],
    permissions: row.permissions === null ? null : (JSON.parse(row.permissions) as Permission[]),
    rateLimit: { maxFailures: row.rate_limit_max_failures, windowSeconds: row.rate_limit_window_seconds, banSeconds: row.rate_limit_ban_seconds },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
