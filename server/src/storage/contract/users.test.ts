/** Storage contract: accounts, first-run setup and the last-admin rule, on every backend. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'vitest';
import type { Storage, StorageTx } from '../port/index.js';
import { storageBackends, type StorageUnderTest } from './backends.js';
import { NOW, newUser } from './fixtures.js';

/** First-run setup as the user service does it: one admin however many run at once. */
const setup = (storage: Storage, username: string): Promise<'created' | 'setup_already_completed'> =>
  storage.transaction(
    async (tx) => {
      if (await tx.users.exists()) return 'setup_already_completed';
      await tx.users.create(newUser({ username, source: 'setup', permissions: ['admin'] }));
      return 'created';
    },
    { locks: ['setup'] },
  );

/** Disabling an admin as the user service does it: refused when it would leave no enabled admin. */
const disableAdmin = (storage: Storage, id: string): Promise<'disabled' | 'last_admin'> =>
  storage.transaction(
    async (tx: StorageTx) => {
      await tx.users.findById(id, { lock: 'update' });
      if ((await tx.users.countEnabledHolding('admin')) <= 1) return 'last_admin';
      await tx.users.setEnabled(id, false, NOW + 1);
      return 'disabled';
    },
    { locks: ['admins'] },
  );

describe.each(storageBackends)('storage contract ($name): users', (backend) => {
  let under: StorageUnderTest;
  beforeEach(async () => {
    under = await backend.open();
  });
  afterEach(() => under.destroy());

  it('creates, finds by id and by name ignoring case, lists oldest first, and refuses a name taken in another case', async () => {
    const { users } = under.storage;
    assert.equal(await users.exists(), false);
    const alice = newUser({ username: 'Alice', permissions: ['models:list', 'keys:manage'], mustChangePassword: true });
    assert.equal(await users.create(alice), 'created');
    assert.equal(await users.create(newUser({ username: 'aLICE' })), 'username_taken');
    const bob = newUser({ username: 'bob', now: NOW + 5 });
    assert.equal(await users.create(bob), 'created');
    assert.equal(await users.exists(), true);

    const found = await users.findById(alice.id);
    assert.deepEqual(found && { ...found, permissions: [...found.permissions].sort() }, {
      id: alice.id,
      username: 'Alice',
      passwordHash: alice.passwordHash,
      source: 'local',
      enabled: true,
      mustChangePassword: true,
      tokenVersion: 0,
      permissions: ['keys:manage', 'models:list'],
      limitsJson: null,
      createdAt: NOW,
      updatedAt: NOW,
    });
    assert.equal((await users.findByUsername('ALICE'))?.id, alice.id);
    assert.equal(await users.findByUsername('nobody'), null);
    assert.equal(await users.findById('no-such-id'), null);
    assert.deepEqual((await users.list()).map((user) => user.username), ['Alice', 'bob']);
  });

  it('answers "no such account" for names and ids holding NUL instead of failing', async () => {
    await under.storage.users.create(newUser({ username: 'carol' }));
    assert.equal(await under.storage.users.findByUsername('carol\u0000'), null);
    assert.equal(await under.storage.users.findById('\u0000'), null);
    assert.equal(await under.storage.users.delete('x\u0000'), false);
  });

  it('replaces permissions, disables (ending tokens), changes passwords (ending tokens) and deletes', async () => {
    const { users } = under.storage;
    const user = newUser({ permissions: ['models:list'] });
    await users.create(user);
    await users.setPermissions(user.id, ['admin', 'keys:manage', 'admin'], NOW + 1);
    let stored = await users.findById(user.id);
    assert.deepEqual([...(stored?.permissions ?? [])].sort(), ['admin', 'keys:manage']);
    assert.equal(stored?.updatedAt, NOW + 1);
    assert.equal(await users.countEnabledHolding('admin'), 1);

    await users.setPermissions(user.id, [], NOW + 2);
    assert.deepEqual((await users.findById(user.id))?.permissions, []);
    assert.equal(await users.countEnabledHolding('admin'), 0);

    await users.setEnabled(user.id, false, NOW + 3);
    stored = await users.findById(user.id);
    assert.equal(stored?.enabled, false);
    assert.equal(stored?.tokenVersion, 1);
    await users.setEnabled(user.id, true, NOW + 4);
    assert.equal((await users.findById(user.id))?.tokenVersion, 1, 'enabling does not bump the token version');

    await users.setLimits(user.id, '{"requests_per_minute":10}', NOW + 4);
    stored = await users.findById(user.id);
    assert.equal(stored?.limitsJson, '{"requests_per_minute":10}');
    assert.equal(stored?.updatedAt, NOW + 4);
    await users.setLimits(user.id, null, NOW + 4);
    assert.equal((await users.findById(user.id))?.limitsJson, null);

    await users.setPassword(user.id, 'new-hash', true, NOW + 5);
    stored = await users.findById(user.id);
    assert.equal(stored?.passwordHash, 'new-hash');
    assert.equal(stored?.mustChangePassword, true);
    assert.equal(stored?.tokenVersion, 2);

    assert.equal(await users.delete(user.id), true);
    assert.equal(await users.delete(user.id), false);
    assert.equal(await users.findById(user.id), null);
  });

  it('counts only enabled holders of a permission', async () => {
    const { users } = under.storage;
    const [a, b, c] = [newUser({ permissions: ['admin'] }), newUser({ permissions: ['admin'] }), newUser({ permissions: ['models:list'] })];
    for (const user of [a, b, c]) await users.create(user);
    await users.setEnabled(b.id, false, NOW);
    assert.equal(await users.countEnabledHolding('admin'), 1);
    assert.equal(await users.countEnabledHolding('models:list'), 1);
  });

  it('rolls a transaction back whole when its work throws', async () => {
    const user = newUser();
    await assert.rejects(
      under.storage.transaction(async (tx) => {
        await tx.users.create(user);
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    assert.equal(await under.storage.users.findById(user.id), null);
  });

  it('ten setups racing on two hosts create exactly one admin', async () => {
    const hosts = [under.storage, await under.another()];
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, index) => setup(hosts[index % 2] as Storage, `admin${index}`)));
    assert.deepEqual(outcomes.filter((outcome) => outcome === 'created').length, 1);
    assert.equal((await under.storage.users.list()).length, 1);
    assert.equal(await under.storage.users.countEnabledHolding('admin'), 1);
  });

  it('two hosts disabling the last two admins at once leave one enabled admin', async () => {
    const other = await under.another();
    for (let round = 0; round < 3; round += 1) {
      const a = newUser({ permissions: ['admin'] });
      const b = newUser({ permissions: ['admin'] });
      await under.storage.users.create(a);
      await under.storage.users.create(b);
      const outcomes = await Promise.all([disableAdmin(under.storage, a.id), disableAdmin(other, b.id)]);
      assert.deepEqual([...outcomes].sort(), ['disabled', 'last_admin']);
      assert.equal(await under.storage.users.countEnabledHolding('admin'), 1);
      // Leave no admin for the next round: delete both.
      await under.storage.users.delete(a.id);
      await under.storage.users.delete(b.id);
    }
  });
});
