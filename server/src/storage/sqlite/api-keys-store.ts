/**
 * API keys on SQLite. The only module that writes SQL for the `api_keys` table. The plaintext is
 * never stored: lookup is by SHA-256 digest, reveal decrypts `ciphertext`. Model restrictions are
 * stored as the JSON the API has always used (`[{"permission_type", "permission_value"}]`).
 *
 * Rows are keyed by their lookup slot (`api-key-slots.ts`, migration 047): a lookup reads the
 * digest's slot range from the rowid B-tree and compares the full digest on the row, in SQL.
 */
import type { ApiKeyChanges, ApiKeyRecord, ApiKeyStore, KeyRateLimit, ModelRestriction, NewApiKey } from '../port/api-keys.js';
import type { TransferRow } from '../port/transfer.js';
import { candidateSlots, LOOKUP_SLOT_PROBES, lookupSlotRange } from './api-key-slots.js';
import type { Database } from './database.js';
import { attempt, sqliteCode } from './errors.js';
import { statement, type Connections } from './statements.js';

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
  limits: string | null;
  created_at: number;
  updated_at: number;
}

const SELECT_KEY = `
  SELECT k.key_hash, k.id, k.user_id, u.username AS owner_username, k.key_prefix, k.ciphertext, k.encryption_key_id,
         k.name, k.description, k.enabled, k.expires_at, k.last_used_at, k.model_permissions, k.permissions,
         k.rate_limit_max_failures, k.rate_limit_window_seconds, k.rate_limit_ban_seconds, k.limits, k.created_at, k.updated_at
  FROM api_keys k JOIN users u ON u.id = k.user_id`;
/**
 * The hot path: a key by its digest, from the digest's slot range (`slot BETWEEN first AND last`, a
 * search of the rowid B-tree), the full digest compared on the row. `+k.key_hash` keeps the planner
 * off `key_hash`'s UNIQUE index (a second B-tree walk per lookup). Parameters: first, last, digest.
 */
export const keyByDigestSql = `${SELECT_KEY} WHERE k.slot BETWEEN ? AND ? AND +k.key_hash = ?`;
const BY_ID = `${SELECT_KEY} WHERE k.id = ?`;
const ALL = `${SELECT_KEY} ORDER BY k.created_at DESC, k.id`;
const BY_OWNER = `${SELECT_KEY} WHERE k.user_id = ? ORDER BY k.created_at DESC, k.id`;

const columnOf: Record<Exclude<keyof ApiKeyChanges, 'rateLimit'>, string> = {
  name: 'name',
  description: 'description',
  enabled: 'enabled',
  expiresAt: 'expires_at',
  modelRestrictions: 'model_permissions',
  permissions: 'permissions',
  limitsJson: 'limits',
};

const rateLimitColumnOf: Record<keyof KeyRateLimit, string> = {
  maxFailures: 'rate_limit_max_failures',
  windowSeconds: 'rate_limit_window_seconds',
  banSeconds: 'rate_limit_ban_seconds',
};

/** Reads and writes API keys. */
export class SqliteApiKeyStore implements ApiKeyStore {
  readonly #c: Connections;

  constructor(connections: Connections) {
    this.#c = connections;
  }

  findByDigest(digest: Buffer): Promise<ApiKeyRecord | null> {
    return attempt(() => {
      // No stored digest is shorter than a slot (they are SHA-256 outputs).
      if (digest.length < 8) return null;
      const { first, last } = lookupSlotRange(digest);
      const row = statement<[bigint, bigint, Buffer], ApiKeyRow>(this.#c.read, keyByDigestSql).get(first, last, digest);
      return row === undefined ? null : toRecord(row);
    });
  }

  findById(id: string): Promise<ApiKeyRecord | null> {
    return attempt(() => {
      const row = statement<[string], ApiKeyRow>(this.#c.read, BY_ID).get(id);
      return row === undefined ? null : toRecord(row);
    });
  }

  list(ownerId: string | null): Promise<ApiKeyRecord[]> {
    return attempt(() => {
      const rows = ownerId === null ? statement<[], ApiKeyRow>(this.#c.read, ALL).all() : statement<[string], ApiKeyRow>(this.#c.read, BY_OWNER).all(ownerId);
      return rows.map(toRecord);
    });
  }

  count(): Promise<number> {
    return attempt(() => (statement(this.#c.read, 'SELECT count(*) FROM api_keys').pluck().get() as number | undefined) ?? 0);
  }

  create(key: NewApiKey): Promise<'created' | 'owner_missing'> {
    return this.#c.gate.write(() => {
      try {
        insertKey(this.#c.write, {
          id: key.id,
          user_id: key.userId,
          key_hash: key.digest,
          key_prefix: key.keyPrefix,
          ciphertext: key.ciphertext,
          encryption_key_id: key.encryptionKeyId,
          name: key.name,
          description: key.description,
          enabled: 1,
          expires_at: key.expiresAt,
          last_used_at: null,
          model_permissions: restrictionsJson(key.modelRestrictions),
          permissions: key.permissions === null ? null : JSON.stringify(key.permissions),
          rate_limit_max_failures: key.rateLimit.maxFailures,
          rate_limit_window_seconds: key.rateLimit.windowSeconds,
          rate_limit_ban_seconds: key.rateLimit.banSeconds,
          limits: key.limitsJson ?? null,
          created_at: key.now,
          updated_at: key.now,
        });
      } catch (error) {
        if (sqliteCode(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY') return 'owner_missing';
        throw error;
      }
      return 'created';
    });
  }

  update(id: string, changes: ApiKeyChanges, now: number): Promise<boolean> {
    const assignments: string[] = [];
    const values: unknown[] = [];
    const { rateLimit, ...fields } = changes;
    for (const [field, value] of Object.entries(fields) as [keyof typeof columnOf, ApiKeyChanges[keyof typeof columnOf]][]) {
      if (value === undefined) continue;
      assignments.push(`${columnOf[field]} = ?`);
      values.push(toColumnValue(field, value));
    }
    for (const [field, value] of Object.entries(rateLimit ?? {}) as [keyof KeyRateLimit, number | null | undefined][]) {
      if (value === undefined) continue;
      assignments.push(`${rateLimitColumnOf[field]} = ?`);
      values.push(value);
    }
    assignments.push('updated_at = ?');
    values.push(now, id);
    return this.#c.gate.write(() => statement(this.#c.write, `UPDATE api_keys SET ${assignments.join(', ')} WHERE id = ?`).run(...values).changes > 0);
  }

  replaceCiphertext(id: string, ciphertext: Buffer, encryptionKeyId: string, now: number): Promise<void> {
    return this.#c.gate.write(() => {
      statement(this.#c.write, 'UPDATE api_keys SET ciphertext = ?, encryption_key_id = ?, updated_at = ? WHERE id = ?').run(ciphertext, encryptionKeyId, now, id);
    });
  }

  delete(id: string): Promise<boolean> {
    return this.#c.gate.write(() => statement(this.#c.write, 'DELETE FROM api_keys WHERE id = ?').run(id).changes > 0);
  }

  keepTombstones(owner: { keyId: string } | { userId: string }, now: number): Promise<void> {
    const [column, value] = 'keyId' in owner ? ['id', owner.keyId] : ['user_id', owner.userId];
    return this.#c.gate.write(() => {
      statement(
        this.#c.write,
        `INSERT INTO revoked_api_keys (key_hash, key_id, revoked_at) SELECT key_hash, id, ? FROM api_keys WHERE ${column} = ?
         ON CONFLICT (key_hash) DO NOTHING`,
      ).run(now, value);
    });
  }

  isRevoked(digest: Buffer): Promise<boolean> {
    return attempt(() => statement<[Buffer], { one: number }>(this.#c.read, 'SELECT 1 AS one FROM revoked_api_keys WHERE key_hash = ?').get(digest) !== undefined);
  }

  touchLastUsed(id: string, now: number): Promise<void> {
    return this.#c.gate.write(() => {
      statement(this.#c.write, 'UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(now, id);
    });
  }
}

/** The columns of a stored key, as every adapter has them: all but SQLite's own `slot`. */
export const apiKeyColumns = [
  'key_hash', 'id', 'user_id', 'key_prefix', 'ciphertext', 'encryption_key_id', 'name', 'description', 'enabled', 'expires_at',
  'last_used_at', 'model_permissions', 'permissions', 'created_at', 'updated_at',
  'rate_limit_max_failures', 'rate_limit_window_seconds', 'rate_limit_ban_seconds', 'limits',
] as const;

/** One row of `api_keys` as written, column by column (SQLite values: 0/1, JSON text). */
type ApiKeyColumns = Record<(typeof apiKeyColumns)[number], unknown>;

const candidateParameters = Array.from({ length: LOOKUP_SLOT_PROBES }, (_, step) => `@slot${step}`);

/**
 * Takes the first free slot of the key's range and writes the row there, in one statement (atomic
 * against other connections). `ifNew`: a key whose digest is stored already is left as it is.
 */
const insertSql = (ifNew: boolean): string => `
  INSERT INTO api_keys (slot, ${apiKeyColumns.join(', ')})
  SELECT candidate.column1, ${apiKeyColumns.map((column) => `@${column}`).join(', ')}
  FROM (VALUES ${candidateParameters.map((parameter) => `(${parameter})`).join(', ')}) AS candidate
  WHERE candidate.column1 NOT IN (SELECT slot FROM api_keys WHERE slot BETWEEN @slot0 AND @slot${LOOKUP_SLOT_PROBES - 1})
  ORDER BY candidate.column1 LIMIT 1${ifNew ? '\n  ON CONFLICT (key_hash) DO NOTHING' : ''}`;
const INSERT_KEY = insertSql(false);
const INSERT_KEY_IF_NEW = insertSql(true);

/**
 * Writes one key at its slot. A digest stored already fails on `key_hash`'s uniqueness (or, with
 * `ifNew`, inserts nothing); answers how many rows were written.
 *
 * @throws when every slot of the key's range is taken (eight digests sharing their first 8 bytes).
 */
function insertKey(db: Database, row: ApiKeyColumns, ifNew = false): number {
  const digest = row.key_hash;
  if (!Buffer.isBuffer(digest) || digest.length < 8) throw new TypeError('an API key digest is a SHA-256 digest (32 bytes)');
  const slots = Object.fromEntries(candidateSlots(digest).map((slot, step) => [`slot${step}`, slot]));
  const written = statement(db, ifNew ? INSERT_KEY_IF_NEW : INSERT_KEY).run({ ...row, ...slots }).changes;
  if (written === 0 && !(ifNew && isStored(db, digest))) throw new Error(`no free lookup slot for an API key (all ${LOOKUP_SLOT_PROBES} of its range are taken)`);
  return written;
}

/** Whether a key with `digest` is stored (the lookup of {@link SqliteApiKeyStore.findByDigest}). */
function isStored(db: Database, digest: Buffer): boolean {
  const { first, last } = lookupSlotRange(digest);
  return statement(db, keyByDigestSql).get(first, last, digest) !== undefined;
}

/**
 * Imports keys as another adapter stored them (`svc-migrate-storage`): each at its slot, a digest
 * stored already left untouched. Answers how many were inserted.
 */
export function importApiKeyRows(db: Database, rows: readonly TransferRow[]): number {
  let inserted = 0;
  for (const row of rows) {
    const values = Object.fromEntries(apiKeyColumns.map((column) => [column, row[column] ?? null])) as ApiKeyColumns;
    inserted += insertKey(db, values, true);
  }
  return inserted;
}

/** The stored JSON of a key's model restrictions (the API's `ModelPermission` shape, kept byte for byte). */
function restrictionsJson(restrictions: readonly ModelRestriction[]): string {
  return JSON.stringify(restrictions.map((restriction) => ({ permission_type: restriction.type, permission_value: restriction.value })));
}

function toColumnValue(field: keyof typeof columnOf, value: ApiKeyChanges[keyof typeof columnOf]): unknown {
  if (field === 'enabled') return value === true ? 1 : 0;
  if (field === 'modelRestrictions') return restrictionsJson(value as readonly ModelRestriction[]);
  if (field === 'permissions') return value === null ? null : JSON.stringify(value);
  return value;
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  const stored = JSON.parse(row.model_permissions) as { permission_type: string; permission_value: string | null }[];
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
    modelRestrictions: stored.map((entry) => ({ type: entry.permission_type, value: entry.permission_value ?? null })),
    permissions: row.permissions === null ? null : (JSON.parse(row.permissions) as string[]),
    rateLimit: { maxFailures: row.rate_limit_max_failures, windowSeconds: row.rate_limit_window_seconds, banSeconds: row.rate_limit_ban_seconds },
    limitsJson: row.limits,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
