/**
 * Storage contract: the change feed. A write through one `Storage` (one host) is seen by another's
 * next `current()`, whichever domain it touched, and never by domains it did not touch. The fault
 * tests at the end are PostgreSQL's own: its LISTEN connection killed, its server stopped and
 * started again.
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { pollUntil } from '../../testing/polling.js';
import { StorageUnavailableError, type CacheDomain, type Epochs, type Storage } from '../port/index.js';
import { postgresBackend, startPostgresFaultBackend, storageBackends, type PostgresFaultBackend, type StorageUnderTest } from './backends.js';
import { NOW, newCounter, newKey, newModel, newUser } from './fixtures.js';

const changed = (before: Epochs, after: Epochs): CacheDomain[] => (['access', 'bans', 'models'] as const).filter((domain) => before[domain] !== after[domain]);

/** What `write` changes, as seen through `observer`'s epochs right after `write` resolved. */
async function domainsChangedBy(observer: Storage, write: () => Promise<unknown>): Promise<CacheDomain[]> {
  const before = await observer.changes.current();
  await write();
  return changed(before, await observer.changes.current());
}

describe.each(storageBackends)('storage contract ($name): change feed', (backend) => {
  let under: StorageUnderTest;
  let other: Storage;
  beforeEach(async () => {
    under = await backend.open();
    other = await under.another();
  });
  afterEach(() => under.destroy());

  it("sees another host's committed writes on the next current(), in the domains they touched", async () => {
    const writer = under.storage;
    const user = newUser();
    assert.deepEqual(await domainsChangedBy(other, () => writer.users.create(user)), ['access']);
    assert.deepEqual(await domainsChangedBy(other, () => writer.users.setPermissions(user.id, ['admin'], NOW)), ['access']);
    const key = newKey(user.id);
    assert.deepEqual(await domainsChangedBy(other, () => writer.keys.create(key)), ['access']);
    assert.deepEqual(await domainsChangedBy(other, () => writer.keys.update(key.id, { enabled: false }, NOW)), ['access']);
    const ban = newCounter({ bannedUntil: NOW + 1000 });
    assert.deepEqual(await domainsChangedBy(other, () => writer.bruteForce.save(ban)), ['bans']);
    assert.deepEqual(await domainsChangedBy(other, () => writer.bruteForce.delete('ip', ban.subject, NOW)), ['bans']);
    assert.deepEqual(await domainsChangedBy(other, () => writer.models.insert(newModel())), ['models']);
    assert.deepEqual(await domainsChangedBy(other, () => writer.transaction(async (tx) => tx.users.setEnabled(user.id, false, NOW))), ['access']);
  });

  it('moves exactly the domain of a delete, a cascade, a re-encryption and a ban that changes or is lifted', async () => {
    const writer = under.storage;
    const user = newUser();
    await writer.users.create(user);
    const key = newKey(user.id);
    await writer.keys.create(key);
    assert.deepEqual(await domainsChangedBy(other, () => writer.keys.replaceCiphertext(key.id, Buffer.from('re-encrypted'), 'fingerprint-2', NOW)), ['access']);
    assert.deepEqual(await domainsChangedBy(other, () => writer.keys.delete(key.id)), ['access']);
    const owned = newUser();
    await writer.users.create(owned);
    await writer.keys.create(newKey(owned.id));
    assert.deepEqual(await domainsChangedBy(other, () => writer.users.delete(owned.id)), ['access'], 'the account and, cascaded, its key');
    const counter = newCounter();
    await writer.bruteForce.save({ ...counter, failures: 3 });
    assert.deepEqual(await domainsChangedBy(other, () => writer.bruteForce.save({ ...counter, failures: 4, bannedUntil: NOW + 1000 })), ['bans'], 'a ban starts');
    assert.deepEqual(await domainsChangedBy(other, () => writer.bruteForce.save({ ...counter, failures: 4, bannedUntil: NOW + 5000 })), ['bans'], 'a ban is extended');
    assert.deepEqual(await domainsChangedBy(other, () => writer.bruteForce.save({ ...counter, failures: 5, bannedUntil: NOW + 5000 })), [], 'only the count moved');
    assert.deepEqual(await domainsChangedBy(other, () => writer.bruteForce.deleteActiveBans('ip', NOW)), ['bans'], 'a ban is lifted');
    const model = newModel();
    await writer.models.insert(model);
    assert.deepEqual(await domainsChangedBy(other, () => writer.models.delete(model.uid)), ['models']);
  });

  it('is not moved by writes no cache depends on, nor by a rolled-back transaction', async () => {
    const user = newUser();
    await under.storage.users.create(user);
    const key = newKey(user.id);
    await under.storage.keys.create(key);
    const counter = newCounter();
    const before = await other.changes.current();
    await under.storage.keys.touchLastUsed(key.id, NOW + 1);
    await under.storage.bruteForce.save({ ...counter, failures: 1 });
    await under.storage.sessions.createFamily('family', user.id, NOW, NOW + 1000);
    await under.storage.settings.write('{}', NOW);
    await assert.rejects(
      under.storage.transaction(async (tx) => {
        await tx.users.setEnabled(user.id, false, NOW);
        throw new Error('rolled back');
      }),
    );
    assert.deepEqual(changed(before, await other.changes.current()), []);
  });

  it('tells a subscriber of the writing host early, until it unsubscribes', async () => {
    const heard: CacheDomain[] = [];
    const heardAccess = new Promise<void>((resolve) => {
      const unsubscribe = under.storage.changes.onChange((domain) => {
        heard.push(domain);
        if (domain !== 'access') return;
        unsubscribe();
        resolve();
      });
    });
    assert.equal(under.storage.changes.listening, true);
    await under.storage.users.create(newUser());
    await heardAccess;
    const count = heard.length;
    await under.storage.users.create(newUser());
    await under.storage.changes.current();
    assert.equal(heard.length, count, 'nothing heard after unsubscribe');
  });
});

/** Terminates the LISTEN connections of the svc storages on `databaseUrl`'s database; answers how many. */
async function terminateListeners(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ terminated: boolean }>(
      "SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = 'svc-listener' AND datname = current_database()",
    );
    return rows.filter((row) => row.terminated).length;
  } finally {
    await client.end();
  }
}

describe('storage contract (postgres): notifications', () => {
  let under: StorageUnderTest;
  beforeEach(async () => {
    under = await postgresBackend.open();
  });
  afterEach(() => under.destroy());

  it("hears another host's commit through NOTIFY, without asking", async () => {
    const other = await under.another();
    const heard = new Promise<CacheDomain>((resolve) => other.changes.onChange(resolve));
    await under.storage.models.insert(newModel());
    assert.equal(await heard, 'models');
  });
});

describe('storage contract (postgres): the change feed under faults', () => {
  let under: PostgresFaultBackend;
  beforeEach(async () => {
    under = await startPostgresFaultBackend();
  });
  afterEach(() => under.destroy());

  it('a killed LISTEN connection still lets the next current() see a change, and the listener comes back', async () => {
    const other = await under.another();
    const before = await other.changes.current();
    assert.equal(await terminateListeners(under.databaseUrl), 2);
    await under.storage.users.create(newUser());
    assert.deepEqual(changed(before, await other.changes.current()), ['access']);
    const states = await pollUntil(async () => other.changes.listening, (listening) => listening, { timeoutMs: 30_000, intervalMs: 50 });
    assert.equal(states.at(-1), true, 'the listener reconnected');
  });

  it('answers StorageUnavailableError while the database is stopped, and recovers by itself when it is back', async () => {
    const user = newUser();
    await under.storage.users.create(user);
    const before = await under.storage.changes.current();
    await under.cluster.halt();
    const isUnavailable = (error: unknown): boolean => error instanceof StorageUnavailableError;
    await assert.rejects(Promise.resolve(under.storage.changes.current()), isUnavailable);
    await assert.rejects(under.storage.ping(), isUnavailable);
    await assert.rejects(under.storage.users.findById(user.id), isUnavailable);
    await assert.rejects(
      under.storage.transaction((tx) => tx.users.setEnabled(user.id, false, NOW)),
      isUnavailable,
    );
    await under.cluster.resume();
    await under.storage.ping();
    await under.storage.users.setEnabled(user.id, false, NOW);
    assert.equal((await under.storage.users.findById(user.id))?.enabled, false);
    assert.deepEqual(changed(before, await under.storage.changes.current()), ['access']);
    const states = await pollUntil(async () => under.storage.changes.listening, (listening) => listening, { timeoutMs: 30_000, intervalMs: 50 });
    assert.equal(states.at(-1), true, 'the listener reconnected');
  });
});
