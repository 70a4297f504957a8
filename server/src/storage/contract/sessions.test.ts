/** Storage contract: refresh-token families, rotation and reuse detection, on every backend. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'vitest';
import type { Storage } from '../port/index.js';
import { storageBackends, type StorageUnderTest } from './backends.js';
import { NOW, digestOf, newUser } from './fixtures.js';

const HOUR = 3_600_000;

/** A refresh as the session service does it: rotate once; a rotated token presented again ends the family. */
const refresh = (storage: Storage, digest: Buffer, now: number): Promise<'rotated' | 'reused' | 'invalid'> =>
  storage.transaction(async (tx) => {
    const token = await tx.sessions.findToken(digest, { lock: 'update' });
    if (token === null) return 'invalid';
    if (token.rotatedAt !== null) {
      await tx.sessions.deleteFamily(token.familyId);
      return 'reused';
    }
    if (!(await tx.sessions.markRotated(digest, now))) return 'reused';
    await tx.sessions.addToken(digestOf(randomUUID()), token.familyId, now, now + HOUR);
    return 'rotated';
  });

describe.each(storageBackends)('storage contract ($name): sessions', (backend) => {
  let under: StorageUnderTest;
  let userId: string;
  beforeEach(async () => {
    under = await backend.open();
    const user = newUser();
    userId = user.id;
    await under.storage.users.create(user);
  });
  afterEach(() => under.destroy());

  it('stores a family and its tokens, finds a token with its limits, and marks it rotated once', async () => {
    const { sessions } = under.storage;
    await sessions.createFamily('family-1', userId, NOW, NOW + 30 * 24 * HOUR);
    const digest = digestOf('token-1');
    await sessions.addToken(digest, 'family-1', NOW, NOW + HOUR);
    assert.deepEqual(await sessions.findToken(digest), { familyId: 'family-1', userId, expiresAt: NOW + HOUR, rotatedAt: null, familyExpiresAt: NOW + 30 * 24 * HOUR });
    assert.equal(await sessions.markRotated(digest, NOW + 1), true);
    assert.equal(await sessions.markRotated(digest, NOW + 2), false);
    assert.equal((await sessions.findToken(digest))?.rotatedAt, NOW + 1);
    assert.equal(await sessions.findToken(digestOf('unknown')), null);
  });

  it('ends one family, every family of a user, and prunes what expired', async () => {
    const { sessions } = under.storage;
    await sessions.createFamily('a', userId, NOW, NOW + 10 * HOUR);
    await sessions.createFamily('b', userId, NOW, NOW + HOUR);
    await sessions.addToken(digestOf('a1'), 'a', NOW, NOW + HOUR);
    await sessions.addToken(digestOf('a2'), 'a', NOW, NOW + 3 * HOUR);
    await sessions.addToken(digestOf('b1'), 'b', NOW, NOW + HOUR);
    await sessions.pruneExpired(NOW + 2 * HOUR);
    assert.equal(await sessions.findToken(digestOf('a1')), null, 'an expired token goes');
    assert.notEqual(await sessions.findToken(digestOf('a2')), null);
    assert.equal(await sessions.findToken(digestOf('b1')), null, 'a family past its absolute lifetime goes whole');
    await sessions.deleteFamily('a');
    assert.equal(await sessions.findToken(digestOf('a2')), null);
    await sessions.createFamily('c', userId, NOW, NOW + HOUR);
    await sessions.addToken(digestOf('c1'), 'c', NOW, NOW + HOUR);
    await sessions.deleteFamiliesOfUser(userId);
    assert.equal(await sessions.findToken(digestOf('c1')), null);
  });

  it('three presentations of one refresh token on two hosts: one rotation wins, the reuse ends the family', async () => {
    const other = await under.another();
    for (let round = 0; round < 3; round += 1) {
      const family = `family-race-${round}`;
      const digest = digestOf(`race-${round}`);
      await under.storage.sessions.createFamily(family, userId, NOW, NOW + 24 * HOUR);
      await under.storage.sessions.addToken(digest, family, NOW, NOW + HOUR);
      const outcomes = await Promise.all([refresh(under.storage, digest, NOW + 1), refresh(other, digest, NOW + 1), refresh(under.storage, digest, NOW + 1)]);
      assert.equal(outcomes.filter((outcome) => outcome === 'rotated').length, 1, JSON.stringify(outcomes));
      assert.ok(outcomes.includes('reused'), JSON.stringify(outcomes));
      assert.equal(await under.storage.sessions.findToken(digest), null, 'the family is gone after a reuse');
    }
  });
});
