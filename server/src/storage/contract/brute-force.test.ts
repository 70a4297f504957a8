/** Storage contract: failure counters, bans and the security settings, on every backend. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'vitest';
import type { BruteForceEntry, Storage } from '../port/index.js';
import { storageBackends, type StorageUnderTest } from './backends.js';
import { NOW, newCounter, newUser } from './fixtures.js';

/** One failure counted as the brute-force service does it: on the locked row, banned at `limit`. */
const countFailure = (storage: Storage, initial: BruteForceEntry, limit: number): Promise<'counted' | 'banned' | 'already_banned'> =>
  storage.transaction(async (tx) => {
    const entry = await tx.bruteForce.lockCounter(initial);
    if (entry.bannedUntil !== null && entry.bannedUntil > NOW) return 'already_banned';
    const failures = entry.failures + 1;
    const banned = failures >= limit;
    await tx.bruteForce.save({ ...entry, failures, lastFailureAt: NOW, bannedUntil: banned ? NOW + 60_000 : null, lockouts: entry.lockouts + (banned ? 1 : 0) });
    return banned ? 'banned' : 'counted';
  });

describe.each(storageBackends)('storage contract ($name): brute force and settings', (backend) => {
  let under: StorageUnderTest;
  beforeEach(async () => {
    under = await backend.open();
  });
  afterEach(() => under.destroy());

  it('saves and finds a counter, overwrites it, and lists active bans (with the account name) newest ban first', async () => {
    const { bruteForce } = under.storage;
    const user = newUser({ username: 'locked-out' });
    await under.storage.users.create(user);
    const ip = newCounter({ failures: 3 });
    await bruteForce.save(ip);
    assert.deepEqual(await bruteForce.find('ip', ip.subject), ip);
    await bruteForce.save({ ...ip, failures: 10, bannedUntil: NOW + 1000 });
    assert.equal((await bruteForce.find('ip', ip.subject))?.failures, 10);
    const account = newCounter({ scope: 'account', subject: user.id, ip: null, userId: user.id, bannedUntil: NOW + 5000, lockouts: 1 });
    await bruteForce.save(account);
    await bruteForce.save(newCounter({ bannedUntil: NOW - 1 }));

    const bans = await bruteForce.activeBans(null, NOW);
    assert.deepEqual(
      bans.map((ban) => [ban.scope, ban.username, ban.bannedUntil]),
      [
        ['account', 'locked-out', NOW + 5000],
        ['ip', null, NOW + 1000],
      ],
    );
    assert.deepEqual((await bruteForce.activeBans('ip', NOW)).map((ban) => ban.ip), ['198.51.100.7']);
    assert.deepEqual(await bruteForce.activeBans('key', NOW), []);
  });

  it('deletes a counter answering whether it was banned, lifts every active ban of a scope, and prunes stale counters', async () => {
    const { bruteForce } = under.storage;
    const banned = newCounter({ bannedUntil: NOW + 1000 });
    const counting = newCounter({ failures: 2 });
    const stale = newCounter({ lastFailureAt: NOW - 100_000 });
    const staleButBanned = newCounter({ lastFailureAt: NOW - 100_000, bannedUntil: NOW + 1000 });
    for (const entry of [banned, counting, stale, staleButBanned]) await bruteForce.save(entry);
    assert.equal(await bruteForce.delete('ip', counting.subject, NOW), false);
    assert.equal(await bruteForce.delete('ip', banned.subject, NOW), true);
    assert.equal(await bruteForce.delete('ip', banned.subject, NOW), false);

    await bruteForce.pruneStale(NOW - 50_000, NOW);
    assert.equal(await bruteForce.find('ip', stale.subject), null);
    assert.notEqual(await bruteForce.find('ip', staleButBanned.subject), null, 'a ban in force is kept');

    const lifted = await bruteForce.deleteActiveBans('ip', NOW);
    assert.deepEqual(lifted.map((ban) => ban.bannedUntil), [NOW + 1000]);
    assert.deepEqual(await bruteForce.activeBans(null, NOW), []);
  });

  it('counters from two hosts add up: 25 failures at once with a limit of 10 ban once and lose none', async () => {
    const hosts = [under.storage, await under.another()];
    const initial = newCounter();
    const outcomes = await Promise.all(Array.from({ length: 25 }, (_, index) => countFailure(hosts[index % 2] as Storage, initial, 10)));
    assert.equal(outcomes.filter((outcome) => outcome === 'counted').length, 9);
    assert.equal(outcomes.filter((outcome) => outcome === 'banned').length, 1);
    assert.equal(outcomes.filter((outcome) => outcome === 'already_banned').length, 15);
    const stored = await under.storage.bruteForce.find('ip', initial.subject);
    assert.equal(stored?.failures, 10);
    assert.equal(stored?.lockouts, 1);
  });

  it('reads and writes the settings document as given', async () => {
    assert.equal(await under.storage.settings.read(), null);
    const json = '{"ip":{"max_failures":10},  "note":"kept byte for byte"}';
    await under.storage.settings.write(json, NOW);
    assert.equal(await under.storage.settings.read(), json);
    await under.storage.settings.write('{}', NOW + 1);
    assert.equal(await (await under.another()).settings.read(), '{}');
  });

  it('two hosts changing different settings under the settings lock lose neither change', async () => {
    const other = await under.another();
    await under.storage.settings.write('{}', NOW);
    const change = (storage: Storage, field: string): Promise<void> =>
      storage.transaction(
        async (tx) => {
          const current = JSON.parse((await tx.settings.read()) ?? '{}') as Record<string, unknown>;
          await tx.settings.write(JSON.stringify({ ...current, [field]: true }), NOW);
        },
        { locks: ['settings'] },
      );
    await Promise.all([change(under.storage, 'a'), change(other, 'b'), change(under.storage, 'c'), change(other, 'd')]);
    assert.deepEqual(Object.keys(JSON.parse((await under.storage.settings.read()) ?? '{}') as object).sort(), ['a', 'b', 'c', 'd']);
  });
});
