/** SQLite's own API-key layout (migration 047): keys at their lookup slot, collisions probed, lookups by slot range. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { newKey, newUser } from '../contract/fixtures.js';
import { LOOKUP_SLOT_PROBES } from './api-key-slots.js';
import { keyByDigestSql } from './api-keys-store.js';
import { SqliteStorage } from './sqlite-storage.js';

/** A 32-byte digest whose first 8 bytes are `prefix` (hex), the rest random. */
const digestStarting = (prefix: string): Buffer => Buffer.concat([Buffer.from(prefix, 'hex'), randomBytes(24)]);

describe('SQLite API keys at their lookup slot', () => {
  let home: string;
  let path: string;
  let storage: SqliteStorage;
  let ownerId: string;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-sqlite-key-slots-'));
    path = join(home, 'auth.db');
    storage = SqliteStorage.open(path);
    const owner = newUser();
    await storage.users.create(owner);
    ownerId = owner.id;
  });
  afterEach(async () => {
    await storage.close();
    await rm(home, { recursive: true, force: true });
  });

  const slotsOf = (): bigint[] => storage.database.prepare('SELECT slot FROM api_keys ORDER BY slot').safeIntegers(true).pluck().all() as bigint[];

  it("Should store a key at its digest's first 8 bytes and find it by searching the rowid B-tree", async () => {
    const key = newKey(ownerId, { digest: digestStarting('8000000000000005') });
    assert.equal(await storage.keys.create(key), 'created');
    assert.deepEqual(slotsOf(), [key.digest.readBigInt64BE(0)]);
    assert.equal((await storage.keys.findByDigest(key.digest))?.id, key.id);
    const plan = storage.database.prepare(`EXPLAIN QUERY PLAN ${keyByDigestSql}`).all(0n, 7n, key.digest) as { detail: string }[];
    assert.match(plan.map((step) => step.detail).join('\n'), /SEARCH k USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
  });

  it('Should keep digests that share their first 8 bytes apart, each found with its own fields, whichever is deleted', async () => {
    const prefix = '0123456789abcdef';
    const keys = [0, 1, 2].map((n) => newKey(ownerId, { digest: digestStarting(prefix), name: `sharing ${n}` }));
    for (const key of keys) assert.equal(await storage.keys.create(key), 'created');
    const own = keys[0]!.digest.readBigInt64BE(0);
    assert.deepEqual(slotsOf(), [own, own + 1n, own + 2n]);
    for (const key of keys) assert.equal((await storage.keys.findByDigest(key.digest))?.name, key.name);
    // A digest with the same first 8 bytes that was never stored matches none of them.
    assert.equal(await storage.keys.findByDigest(digestStarting(prefix)), null);
    // No "gap" rule: the keys after a deleted one are still found, and its slot is taken again.
    assert.equal(await storage.keys.delete(keys[0]!.id), true);
    assert.equal(await storage.keys.findByDigest(keys[0]!.digest), null);
    for (const key of keys.slice(1)) assert.equal((await storage.keys.findByDigest(key.digest))?.name, key.name);
    const again = newKey(ownerId, { digest: digestStarting(prefix) });
    assert.equal(await storage.keys.create(again), 'created');
    assert.deepEqual(slotsOf(), [own, own + 1n, own + 2n]);
    assert.equal((await storage.keys.findByDigest(again.digest))?.id, again.id);
  });

  it('Should refuse a key whose whole range is taken, with a clear error, writing nothing', async () => {
    const prefix = '7ffffffffffffffc'; // near the top: its range is the eight highest slots
    for (let n = 0; n < LOOKUP_SLOT_PROBES; n += 1) assert.equal(await storage.keys.create(newKey(ownerId, { digest: digestStarting(prefix) })), 'created');
    const refused = newKey(ownerId, { digest: digestStarting(prefix) });
    await assert.rejects(storage.keys.create(refused), /no free lookup slot for an API key/);
    assert.equal(await storage.keys.count(), LOOKUP_SLOT_PROBES);
    assert.equal(await storage.keys.findById(refused.id), null);
    assert.deepEqual(slotsOf(), Array.from({ length: LOOKUP_SLOT_PROBES }, (_, step) => 0x7fff_ffff_ffff_fff8n + BigInt(step)));
  });

  it('Should still refuse a second key with the same digest', async () => {
    const first = newKey(ownerId);
    assert.equal(await storage.keys.create(first), 'created');
    await assert.rejects(storage.keys.create(newKey(ownerId, { digest: first.digest })), /UNIQUE constraint failed: api_keys\.key_hash/);
    assert.equal(await storage.keys.count(), 1);
  });

  it('Should give keys sharing a slot, created at once from two processes, a slot each', async () => {
    const other = SqliteStorage.open(path);
    try {
      const prefix = 'fedcba9876543210';
      const keys = Array.from({ length: 6 }, (_, n) => newKey(ownerId, { digest: digestStarting(prefix), name: `racing ${n}` }));
      const outcomes = await Promise.all(keys.map((key, n) => (n % 2 === 0 ? storage : other).keys.create(key)));
      assert.deepEqual(outcomes, keys.map(() => 'created'));
      assert.equal(new Set(slotsOf()).size, keys.length);
      for (const key of keys) assert.equal((await other.keys.findByDigest(key.digest))?.name, key.name);
    } finally {
      await other.close();
    }
  });

  it('Should answer null for a digest too short to have a slot', async () => {
    assert.equal(await storage.keys.findByDigest(Buffer.alloc(4)), null);
  });
});
