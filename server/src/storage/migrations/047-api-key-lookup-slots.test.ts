import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { apiKeyDigest, apiKeyShape, generateApiKey } from '../../crypto/api-key-format.js';
import { NOW } from '../contract/fixtures.js';
import { keyByDigestSql } from '../sqlite/api-keys-store.js';
import { SqliteStorage } from '../sqlite/sqlite-storage.js';
import { migrations } from './index.js';

const before047 = migrations.filter((migration) => migration.version < 47);
const versionBefore = Math.max(...before047.map((migration) => migration.version));

/** A 32-byte digest whose first 8 bytes are `prefix` (hex), the rest random. */
const digestStarting = (prefix: string): Buffer => Buffer.concat([Buffer.from(prefix, 'hex'), randomBytes(24)]);

interface OlderKey {
  id: string;
  digest: Buffer;
  name: string;
  enabled: boolean;
}

/** A database as the server before 047 left it, with one owner and `digests` as its keys (every other one disabled). */
function olderDatabase(path: string, digests: readonly Buffer[]): { ownerId: string; keys: OlderKey[] } {
  const db = new BetterSqlite3(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    for (const migration of before047) db.exec(migration.sql);
    db.pragma(`user_version = ${versionBefore}`);
    const ownerId = randomUUID();
    db.prepare("INSERT INTO users (id, username, password_hash, source, created_at, updated_at) VALUES (?, 'owner', 'x', 'local', ?, ?)").run(ownerId, NOW, NOW);
    const insert = db.prepare(
      `INSERT INTO api_keys (key_hash, id, user_id, key_prefix, ciphertext, encryption_key_id, name, description, enabled, expires_at,
         last_used_at, model_permissions, permissions, created_at, updated_at, rate_limit_max_failures, limits)
       VALUES (?, ?, ?, 'sk-svc-abcd', ?, 'fingerprint-1', ?, 'older', ?, NULL, NULL, '[{"permission_type":"all","permission_value":null}]', '["models:list"]', ?, ?, 5, '{"requests_per_minute":60}')`,
    );
    const keys = digests.map((digest, n) => ({ id: randomUUID(), digest, name: `older ${n}`, enabled: n % 2 === 0 }));
    db.transaction(() => {
      for (const key of keys) insert.run(key.digest, key.id, ownerId, randomBytes(48), key.name, key.enabled ? 1 : 0, NOW + keys.indexOf(key), NOW);
    })();
    return { ownerId, keys };
  } finally {
    db.close();
  }
}

const accessEpoch = (storage: SqliteStorage): number =>
  storage.database.prepare("SELECT epoch FROM cache_epochs WHERE domain = 'access'").pluck().get() as number;

describe('migration 047 (API keys at their lookup slot)', () => {
  let home: string;
  let path: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-migration-047-'));
    path = join(home, 'auth.db');
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('Should keep every key verifying, its fields as they were, and look keys up by slot', async () => {
    const presented = Array.from({ length: 40 }, () => generateApiKey());
    // Real keys, and digests at the edges: sharing their first 8 bytes, the lowest slot, the highest ones.
    const digests = [
      ...presented.map(apiKeyDigest),
      ...Array.from({ length: 3 }, () => digestStarting('0123456789abcdef')),
      digestStarting('8000000000000000'),
      ...Array.from({ length: 2 }, () => digestStarting('7fffffffffffffff')),
    ];
    const { keys } = olderDatabase(path, digests);
    const storage = SqliteStorage.open(path);
    try {
      assert.equal(storage.database.pragma('user_version', { simple: true }), 47);
      for (const key of presented) assert.notEqual(apiKeyShape(key), 'malformed');
      for (const key of keys) {
        const found = await storage.keys.findByDigest(key.digest);
        assert.deepEqual(
          found && [found.id, found.name, found.enabled, found.description, found.permissions, found.rateLimit.maxFailures, found.limitsJson, found.ownerUsername],
          [key.id, key.name, key.enabled, 'older', ['models:list'], 5, '{"requests_per_minute":60}', 'owner'],
          key.name,
        );
      }
      assert.equal(await storage.keys.count(), keys.length);
      const slots = storage.database.prepare('SELECT slot, key_hash FROM api_keys').safeIntegers(true).all() as { slot: bigint; key_hash: Buffer }[];
      const sharing = slots.filter((row) => row.key_hash.subarray(0, 8).equals(Buffer.from('0123456789abcdef', 'hex'))).map((row) => row.slot - row.key_hash.readBigInt64BE(0));
      assert.deepEqual(sharing.sort(), [0n, 1n, 2n]);
      const plan = storage.database.prepare(`EXPLAIN QUERY PLAN ${keyByDigestSql}`).all(0n, 7n, digests[0]) as { detail: string }[];
      assert.match(plan.map((step) => step.detail).join('\n'), /USING INTEGER PRIMARY KEY/);
      const indexes = storage.database.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'api_keys' AND sql IS NOT NULL").pluck().all();
      assert.deepEqual(indexes, ['api_keys_by_user']);
      assert.deepEqual((await storage.keys.list(null)).map((key) => key.id), [...keys].reverse().map((key) => key.id), 'listed newest first, as before');
    } finally {
      await storage.close();
    }
  });

  it('Should keep revoked-key tombstones, and move the access epoch on the same changes as before', async () => {
    const [gone, kept] = [generateApiKey(), generateApiKey()];
    const { ownerId, keys } = olderDatabase(path, [apiKeyDigest(gone), apiKeyDigest(kept)]);
    const older = new BetterSqlite3(path);
    older.prepare('INSERT INTO revoked_api_keys (key_hash, key_id, revoked_at) SELECT key_hash, id, ? FROM api_keys WHERE id = ?').run(NOW, keys[0]!.id);
    older.prepare('DELETE FROM api_keys WHERE id = ?').run(keys[0]!.id);
    older.close();
    const storage = SqliteStorage.open(path);
    try {
      assert.equal(await storage.keys.isRevoked(apiKeyDigest(gone)), true);
      assert.equal(await storage.keys.findByDigest(apiKeyDigest(gone)), null);
      const keptId = keys[1]!.id;
      let epoch = accessEpoch(storage);
      await storage.keys.touchLastUsed(keptId, NOW + 1);
      assert.equal(accessEpoch(storage), epoch, 'last_used_at moves no epoch');
      assert.equal((await storage.keys.findByDigest(apiKeyDigest(kept)))?.lastUsedAt, NOW + 1);
      await storage.keys.update(keptId, { name: 'renamed' }, NOW + 2);
      assert.ok(accessEpoch(storage) > epoch, 'an update moves the access epoch');
      epoch = accessEpoch(storage);
      await storage.keys.update(keptId, { limitsJson: null }, NOW + 3);
      assert.ok(accessEpoch(storage) > epoch, 'a change of limits moves it (031)');
      epoch = accessEpoch(storage);
      const added = generateApiKey();
      assert.equal(
        await storage.keys.create({
          id: randomUUID(), userId: ownerId, digest: apiKeyDigest(added), keyPrefix: added.slice(0, 11), ciphertext: randomBytes(48), encryptionKeyId: 'fingerprint-1',
          name: 'after', description: null, expiresAt: null, modelRestrictions: [], permissions: null, rateLimit: { maxFailures: null, windowSeconds: null, banSeconds: null }, now: NOW + 4,
        }),
        'created',
      );
      assert.ok(accessEpoch(storage) > epoch, 'a new key moves it');
      assert.equal((await storage.keys.findByDigest(apiKeyDigest(added)))?.name, 'after');
      epoch = accessEpoch(storage);
      await storage.transaction(async (tx) => {
        await tx.keys.keepTombstones({ keyId: keptId }, NOW + 5);
        await tx.keys.delete(keptId);
      });
      assert.ok(accessEpoch(storage) > epoch, 'a deletion moves it');
      assert.equal(await storage.keys.isRevoked(apiKeyDigest(kept)), true);
      assert.equal(await storage.keys.findByDigest(apiKeyDigest(kept)), null);
    } finally {
      await storage.close();
    }
  });

  it('Should fail, leaving the database as it was, when a key can find no free slot', async () => {
    const crowded = Array.from({ length: 9 }, () => digestStarting('00000000000000aa'));
    olderDatabase(path, crowded);
    assert.throws(() => SqliteStorage.open(path), /every_key_has_a_lookup_slot/);
    const db = new BetterSqlite3(path, { readonly: true });
    try {
      assert.equal(db.pragma('user_version', { simple: true }), versionBefore);
      assert.deepEqual((db.prepare('SELECT key_hash FROM api_keys ORDER BY key_hash').pluck().all() as Buffer[]).map((digest) => digest.toString('hex')), crowded.map((digest) => digest.toString('hex')).sort());
    } finally {
      db.close();
    }
  });
});
