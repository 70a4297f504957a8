/** Storage contract: API keys, on every backend. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { storageBackends, type StorageUnderTest } from './backends.js';
import { NOW, newKey, newUser } from './fixtures.js';

describe.each(storageBackends)('storage contract ($name): API keys', (backend) => {
  let under: StorageUnderTest;
  beforeEach(async () => {
    under = await backend.open();
  });
  afterEach(() => under.destroy());

  it('stores a key and finds it by digest and by id, with its owner and every field', async () => {
    const owner = newUser({ username: 'Owner' });
    await under.storage.users.create(owner);
    const key = newKey(owner.id, {
      description: 'for the laptop',
      expiresAt: NOW + 86_400_000,
      modelRestrictions: [
        { type: 'model_id', value: 'my-echo' },
        { type: 'model_type', value: 'embedding' },
      ],
      permissions: ['models:list'],
      limitsJson: '{"requests_per_minute":60}',
    });
    assert.equal(await under.storage.keys.create(key), 'created');
    const expected = {
      id: key.id,
      digest: key.digest,
      userId: owner.id,
      ownerUsername: 'Owner',
      keyPrefix: key.keyPrefix,
      ciphertext: key.ciphertext,
      encryptionKeyId: 'fingerprint-1',
      name: key.name,
      description: 'for the laptop',
      enabled: true,
      expiresAt: NOW + 86_400_000,
      lastUsedAt: null,
      modelRestrictions: key.modelRestrictions,
      permissions: ['models:list'],
      rateLimit: { maxFailures: null, windowSeconds: null, banSeconds: null },
      limitsJson: '{"requests_per_minute":60}',
      createdAt: NOW,
      updatedAt: NOW,
    };
    assert.deepEqual(await under.storage.keys.findByDigest(key.digest), expected);
    assert.deepEqual(await under.storage.keys.findById(key.id), expected);
    assert.equal(await under.storage.keys.findByDigest(Buffer.alloc(32)), null);
    assert.equal(await under.storage.keys.findById('\u0000'), null);
    assert.equal(await under.storage.keys.count(), 1);
  });

  it("answers 'owner_missing' when the owner does not exist, inside a transaction too, which stays usable", async () => {
    assert.equal(await under.storage.keys.create(newKey('no-such-user')), 'owner_missing');
    const owner = newUser();
    const outcome = await under.storage.transaction(async (tx) => {
      const missing = await tx.keys.create(newKey('no-such-user'));
      await tx.users.create(owner);
      return missing;
    });
    assert.equal(outcome, 'owner_missing');
    assert.notEqual(await under.storage.users.findById(owner.id), null);
    assert.equal(await under.storage.keys.count(), 0);
  });

  it('lists keys newest first, all or one owner’s', async () => {
    const [alice, bob] = [newUser(), newUser()];
    await under.storage.users.create(alice);
    await under.storage.users.create(bob);
    const older = newKey(alice.id, { now: NOW });
    const newer = newKey(alice.id, { now: NOW + 10 });
    const bobs = newKey(bob.id, { now: NOW + 5 });
    for (const key of [older, newer, bobs]) await under.storage.keys.create(key);
    assert.deepEqual((await under.storage.keys.list(null)).map((key) => key.id), [newer.id, bobs.id, older.id]);
    assert.deepEqual((await under.storage.keys.list(alice.id)).map((key) => key.id), [newer.id, older.id]);
  });

  it('updates only the given fields, re-encrypts, records use, deletes, and loses keys with their owner', async () => {
    const owner = newUser();
    await under.storage.users.create(owner);
    const key = newKey(owner.id);
    await under.storage.keys.create(key);
    assert.equal(await under.storage.keys.update(key.id, { name: 'renamed', enabled: false, permissions: [] }, NOW + 1), true);
    assert.equal(await under.storage.keys.update('no-such-key', { name: 'x' }, NOW + 1), false);
    let stored = await under.storage.keys.findById(key.id);
    assert.equal(stored?.name, 'renamed');
    assert.equal(stored?.enabled, false);
    assert.deepEqual(stored?.permissions, []);
    assert.equal(stored?.description, null);
    assert.deepEqual(stored?.modelRestrictions, [{ type: 'all', value: null }]);
    assert.equal(stored?.updatedAt, NOW + 1);

    await under.storage.keys.update(key.id, { permissions: null, expiresAt: NOW + 9, description: 'd', modelRestrictions: [] }, NOW + 2);
    stored = await under.storage.keys.findById(key.id);
    assert.equal(stored?.permissions, null);
    assert.equal(stored?.expiresAt, NOW + 9);
    assert.deepEqual(stored?.modelRestrictions, []);
    assert.equal(stored?.limitsJson, null);

    await under.storage.keys.update(key.id, { limitsJson: '{"tokens_per_minute":1000}' }, NOW + 2);
    assert.equal((await under.storage.keys.findById(key.id))?.limitsJson, '{"tokens_per_minute":1000}');
    await under.storage.keys.update(key.id, { limitsJson: null }, NOW + 2);
    assert.equal((await under.storage.keys.findById(key.id))?.limitsJson, null);

    const ciphertext = Buffer.from('another ciphertext');
    await under.storage.keys.replaceCiphertext(key.id, ciphertext, 'fingerprint-2', NOW + 3);
    stored = await under.storage.keys.findById(key.id);
    assert.deepEqual(stored?.ciphertext, ciphertext);
    assert.equal(stored?.encryptionKeyId, 'fingerprint-2');

    await under.storage.keys.touchLastUsed(key.id, NOW + 4);
    assert.equal((await under.storage.keys.findById(key.id))?.lastUsedAt, NOW + 4);

    const second = newKey(owner.id);
    await under.storage.keys.create(second);
    assert.equal(await under.storage.keys.delete(key.id), true);
    assert.equal(await under.storage.keys.delete(key.id), false);
    await under.storage.users.delete(owner.id);
    assert.equal(await under.storage.keys.findByDigest(second.digest), null);
  });
});
