/**
 * API keys on PostgreSQL. Lookup is by the SHA-256 digest (`bytea` primary key: one B-tree descent
 * however many keys exist). Model restrictions are stored as the same JSON as on SQLite
 * (`[{"permission_type":…,"permission_value":…}]`), so a copy between the two is byte for byte.
 */
import type { ApiKeyChanges, ApiKeyRecord, ApiKeyStore, KeyRateLimit, ModelRestriction, NewApiKey } from '../port/index.js';
import { errorCode } from './errors.js';
import type { Executor } from './executor.js';

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
  enabled: boolean;
  expires_at: number | null;
  last_used_at: number | null;
  model_permissions: string;
  permissions: string | null;
  rate_limit_max_failures: number | null;
  rate_limit_window_seconds: number | null;
  rate_limit_ban_seconds: number | null;
  limits: string | null;
  created_at: number;
  updated_at: number;
}

const SELECT_KEY = `
  SELECT k.key_hash, k.id, k.user_id, u.username AS owner_username, k.key_prefix, k.ciphertext, k.encryption_key_id,
         k.name, k.description, k.enabled, k.expires_at, k.last_used_at, k.model_permissions, k.permissions,
         k.rate_limit_max_failures, k.rate_limit_window_seconds, k.rate_limit_ban_seconds, k.limits, k.created_at, k.updated_at
  FROM api_keys k JOIN users u ON u.id = k.user_id`;

/** The stored JSON of model restrictions (the wire's `ModelPermission` spelling). */
export const encodeRestrictions = (restrictions: readonly ModelRestriction[]): string =>
  JSON.stringify(restrictions.map((restriction) => ({ permission_type: restriction.type, permission_value: restriction.value })));

/** Model restrictions from their stored JSON. */
export const decodeRestrictions = (json: string): ModelRestriction[] =>
  (JSON.parse(json) as { permission_type: string; permission_value?: string | null }[]).map((entry) => ({
    type: entry.permission_type,
    value: entry.permission_value ?? null,
  }));

const encodePermissions = (permissions: readonly string[] | null): string | null => (permissions === null ? null : JSON.stringify(permissions));

const toRecord = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  digest: row.key_hash,
  userId: row.user_id,
  ownerUsername: row.owner_username,
  keyPrefix: row.key_prefix,
  ciphertext: row.ciphertext,
  encryptionKeyId: row.encryption_key_id,
  name: row.name,
  description: row.description,
  enabled: row.enabled,
  expiresAt: row.expires_at,
  lastUsedAt: row.last_used_at,
  modelRestrictions: decodeRestrictions(row.model_permissions),
  permissions: row.permissions === null ? null : (JSON.parse(row.permissions) as string[]),
  rateLimit: { maxFailures: row.rate_limit_max_failures, windowSeconds: row.rate_limit_window_seconds, banSeconds: row.rate_limit_ban_seconds },
  limitsJson: row.limits,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The column each changeable field is stored in, with its encoding. */
type FieldChanges = Omit<ApiKeyChanges, 'rateLimit'>;

/** The column of each of a key's own brute-force thresholds. */
const rateLimitColumns: Record<keyof KeyRateLimit, string> = {
  maxFailures: 'rate_limit_max_failures',
  windowSeconds: 'rate_limit_window_seconds',
  banSeconds: 'rate_limit_ban_seconds',
};

const changeColumns: { [Field in keyof Required<FieldChanges>]: [column: string, encode: (value: Required<FieldChanges>[Field]) => unknown] } = {
  name: ['name', (value) => value],
  description: ['description', (value) => value],
  enabled: ['enabled', (value) => value],
  expiresAt: ['expires_at', (value) => value],
  modelRestrictions: ['model_permissions', encodeRestrictions],
  permissions: ['permissions', encodePermissions],
  limitsJson: ['limits', (value) => value],
};

/** {@link ApiKeyStore} on PostgreSQL. */
export class PostgresApiKeyStore implements ApiKeyStore {
  readonly #sql: Executor;

  constructor(sql: Executor) {
    this.#sql = sql;
  }

  async findByDigest(digest: Buffer): Promise<ApiKeyRecord | null> {
    const row = await this.#sql.first<ApiKeyRow>(`${SELECT_KEY} WHERE k.key_hash = $1`, [digest], { name: 'svc-key-by-digest' });
    return row === null ? null : toRecord(row);
  }

  async findById(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.#sql.first<ApiKeyRow>(`${SELECT_KEY} WHERE k.id = $1`, [id], { lookup: true });
    return row === null ? null : toRecord(row);
  }

  async list(ownerId: string | null): Promise<ApiKeyRecord[]> {
    const rows =
      ownerId === null
        ? await this.#sql.rows<ApiKeyRow>(`${SELECT_KEY} ORDER BY k.created_at DESC, k.id COLLATE "C"`)
        : await this.#sql.rows<ApiKeyRow>(`${SELECT_KEY} WHERE k.user_id = $1 ORDER BY k.created_at DESC, k.id COLLATE "C"`, [ownerId], { lookup: true });
    return rows.map(toRecord);
  }

  async count(): Promise<number> {
    return (await this.#sql.first<{ count: number }>('SELECT count(*) AS count FROM api_keys'))?.count ?? 0;
  }

  /**
   * Inserts only while the owner exists; an owner deleted by a transaction that commits meanwhile
   * (the foreign key's 23503) also answers `'owner_missing'`, without aborting a surrounding
   * transaction.
   */
  async create(key: NewApiKey): Promise<'created' | 'owner_missing'> {
    try {
      const inserted = await this.#sql.isolated(() =>
        this.#sql.run(
          `INSERT INTO api_keys (id, user_id, key_hash, key_prefix, ciphertext, encryption_key_id, name, description,
             enabled, expires_at, last_used_at, model_permissions, permissions,
             rate_limit_max_failures, rate_limit_window_seconds, rate_limit_ban_seconds, limits, created_at, updated_at)
           SELECT $1, u.id, $3, $4, $5, $6, $7, $8, true, $9, NULL, $10, $11, $13, $14, $15, $16, $12, $12 FROM users u WHERE u.id = $2`,
          [
            key.id,
            key.userId,
            key.digest,
            key.keyPrefix,
            key.ciphertext,
            key.encryptionKeyId,
            key.name,
            key.description,
            key.expiresAt,
            encodeRestrictions(key.modelRestrictions),
            encodePermissions(key.permissions),
            key.now,
            key.rateLimit.maxFailures,
            key.rateLimit.windowSeconds,
            key.rateLimit.banSeconds,
            key.limitsJson ?? null,
          ],
        ),
      );
      return inserted === 1 ? 'created' : 'owner_missing';
    } catch (error) {
      if (errorCode(error) === '23503') return 'owner_missing';
      throw error;
    }
  }

  async update(id: string, changes: ApiKeyChanges, now: number): Promise<boolean> {
    if (id.includes('\u0000')) return false; // no stored id holds NUL
    const assignments: string[] = [];
    const values: unknown[] = [];
    for (const field of Object.keys(changeColumns) as (keyof FieldChanges)[]) {
      const value = changes[field];
      if (value === undefined) continue;
      const [column, encode] = changeColumns[field] as [string, (value: unknown) => unknown];
      values.push(encode(value));
      assignments.push(`${column} = $${values.length}`);
    }
    for (const field of Object.keys(rateLimitColumns) as (keyof KeyRateLimit)[]) {
      const value = changes.rateLimit?.[field];
      if (value === undefined) continue;
      values.push(value);
      assignments.push(`${rateLimitColumns[field]} = $${values.length}`);
    }
    values.push(now, id);
    assignments.push(`updated_at = $${values.length - 1}`);
    return (await this.#sql.run(`UPDATE api_keys SET ${assignments.join(', ')} WHERE id = $${values.length}`, values)) > 0;
  }

  async replaceCiphertext(id: string, ciphertext: Buffer, encryptionKeyId: string, now: number): Promise<void> {
    await this.#sql.run('UPDATE api_keys SET ciphertext = $1, encryption_key_id = $2, updated_at = $3 WHERE id = $4', [ciphertext, encryptionKeyId, now, id], {
      lookup: true,
    });
  }

  async delete(id: string): Promise<boolean> {
    return (await this.#sql.run('DELETE FROM api_keys WHERE id = $1', [id], { lookup: true })) > 0;
  }

  async keepTombstones(owner: { keyId: string } | { userId: string }, now: number): Promise<void> {
    const [column, value] = 'keyId' in owner ? ['id', owner.keyId] : ['user_id', owner.userId];
    await this.#sql.run(
      `INSERT INTO revoked_api_keys (key_hash, key_id, revoked_at) SELECT key_hash, id, $1 FROM api_keys WHERE ${column} = $2
       ON CONFLICT (key_hash) DO NOTHING`,
      [now, value],
      { lookup: true },
    );
  }

  async isRevoked(digest: Buffer): Promise<boolean> {
    return (await this.#sql.first('SELECT 1 AS one FROM revoked_api_keys WHERE key_hash = $1', [digest], { name: 'svc-key-revoked' })) !== null;
  }

  /** Writes only `last_used_at`, which the cache-epoch trigger leaves out: no cache is dropped. */
  async touchLastUsed(id: string, now: number): Promise<void> {
    await this.#sql.run('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [now, id], { name: 'svc-key-touch', lookup: true });
  }
}
