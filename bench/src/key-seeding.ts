/**
 * Fills a database with real API keys for the key-verification benchmark: each key is made as the
 * server makes one (`generateApiKey`: CSPRNG, base62, CRC32 checksum), stored under its SHA-256
 * digest with its display prefix, and owned by an existing user, so the server verifies it like any
 * other. How the rows are written depends on the backend:
 *
 * - SQLite: through the storage port (`keys.create`), 50,000 keys per transaction (a synchronous
 *   in-process insert costs a few microseconds; 1,000,000 take about 95 s since migration 047 gave
 *   each key a lookup slot and a unique digest index; about 40 s before).
 * - PostgreSQL: one `INSERT … SELECT … FROM unnest($1::text[], $2::bytea[], $3::text[])` per batch of
 *   10,000 keys on a connection of its own, the next batch generated while the server inserts the
 *   previous one. Through the port each key would be a round trip (and, inside a transaction, a
 *   savepoint): 1,000,000 of them took hours. The statement writes what the adapter's `create`
 *   writes for a key without description, expiry, restrictions, permissions or thresholds (the
 *   seeding test checks the server answers `GET /v1/auth/me` with a seeded key on both backends).
 *   After the last batch it runs `ANALYZE api_keys`, as autovacuum does in a deployment whose table
 *   grew, so lookups are planned for the table's real size.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { apiKeyDigest, generateApiKey, type Storage, type StorageConfig } from '@svc/server/internals';

/** Keys per PostgreSQL statement (three arrays of this many elements). */
const POSTGRES_BATCH = 10_000;
/** Keys per SQLite transaction. */
const SQLITE_BATCH = 50_000;
/** Characters of a key stored as its display prefix, as the benchmark has always stored it. */
const PREFIX_LENGTH = 11;

/** What to seed. */
export interface KeySeeding {
  /** The user who owns every key (must exist). */
  userId: string;
  count: number;
  /** Every `keepEvery`-th key (counting from the first) is returned in plain text, to be presented later. */
  keepEvery: number;
  /** Keys per statement (PostgreSQL) or transaction (SQLite); the defaults suit 1,000,000 keys. */
  batchSize?: number;
}

/** One batch of new keys, column by column. */
interface KeyBatch {
  ids: string[];
  digests: Buffer[];
  prefixes: string[];
}

/** Generates keys `from` to `to` (exclusive), keeping the plain text of every `keepEvery`-th in `kept`. */
function generateBatch(from: number, to: number, keepEvery: number, kept: string[]): KeyBatch {
  const batch: KeyBatch = { ids: [], digests: [], prefixes: [] };
  for (let i = from; i < to; i += 1) {
    const key = generateApiKey();
    if (i % keepEvery === 0) kept.push(key);
    batch.ids.push(randomUUID());
    batch.digests.push(apiKeyDigest(key));
    batch.prefixes.push(key.slice(0, PREFIX_LENGTH));
  }
  return batch;
}

/** The ranges `[from, to)` that cut `count` into batches of `size`. */
function* batches(count: number, size: number): Generator<[from: number, to: number]> {
  for (let from = 0; from < count; from += size) yield [from, Math.min(count, from + size)];
}

async function seedThroughPort(storage: Storage, seeding: KeySeeding, kept: string[]): Promise<void> {
  for (const [from, to] of batches(seeding.count, seeding.batchSize ?? SQLITE_BATCH)) {
    const batch = generateBatch(from, to, seeding.keepEvery, kept);
    await storage.transaction(async (tx) => {
      for (let i = 0; i < batch.ids.length; i += 1) {
        const created = await tx.keys.create({
          id: batch.ids[i] as string,
          userId: seeding.userId,
          digest: batch.digests[i] as Buffer,
          keyPrefix: batch.prefixes[i] as string,
          ciphertext: Buffer.alloc(1),
          encryptionKeyId: 'bench',
          name: 'bench',
          description: null,
          expiresAt: null,
          modelRestrictions: [],
          permissions: null,
          rateLimit: { maxFailures: null, windowSeconds: null, banSeconds: null },
          now: Date.now(),
        });
        if (created !== 'created') throw new Error(`seeding keys: the owner ${seeding.userId} does not exist`);
      }
    });
  }
}

/**
 * The same row as the PostgreSQL adapter's `PostgresApiKeyStore.create` writes for such a key:
 * `model_permissions` is the stored JSON of no restrictions, `enabled` true, every optional column
 * NULL. Only from an existing owner, so a missing one inserts nothing (and the count check fails)
 * instead of orphans.
 */
const INSERT_BATCH = `
  INSERT INTO api_keys (id, user_id, key_hash, key_prefix, ciphertext, encryption_key_id, name, description,
    enabled, expires_at, last_used_at, model_permissions, permissions, created_at, updated_at)
  SELECT k.id, u.id, k.key_hash, k.key_prefix, '\\x00'::bytea, 'bench', 'bench', NULL, true, NULL, NULL, '[]', NULL, $5, $5
  FROM unnest($1::text[], $2::bytea[], $3::text[]) AS k (id, key_hash, key_prefix)
  JOIN users u ON u.id = $4`;

async function seedPostgres(url: string, seeding: KeySeeding, kept: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let inFlight: Promise<number> = Promise.resolve(0);
    let inserted = 0;
    for (const [from, to] of batches(seeding.count, seeding.batchSize ?? POSTGRES_BATCH)) {
      // Generated while the server still inserts the previous batch: key generation and the insert overlap.
      const batch = generateBatch(from, to, seeding.keepEvery, kept);
      inserted += await inFlight;
      inFlight = client.query(INSERT_BATCH, [batch.ids, batch.digests, batch.prefixes, seeding.userId, Date.now()]).then((result) => result.rowCount ?? 0);
    }
    inserted += await inFlight;
    if (inserted !== seeding.count) throw new Error(`seeding keys: ${inserted} of ${seeding.count} inserted (does the owner ${seeding.userId} exist?)`);
    await client.query('ANALYZE api_keys');
  } finally {
    await client.end();
  }
}

/**
 * Stores `seeding.count` new keys owned by `seeding.userId` in the database `where` names (which
 * `storage` has open and migrated), and answers the plain text of every `keepEvery`-th.
 *
 * @example
 * const sample = await seedKeys(storage, { kind: 'postgres', url, poolMax: 4 }, { userId, count: 1_000_000, keepEvery: 100 });
 */
export async function seedKeys(storage: Storage, where: StorageConfig, seeding: KeySeeding): Promise<string[]> {
  const kept: string[] = [];
  if (where.kind === 'postgres') await seedPostgres(where.url, seeding, kept);
  else await seedThroughPort(storage, seeding, kept);
  return kept;
}
