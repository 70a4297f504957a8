import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../testing/postgres-database.js';
import { newUser, NOW } from '../contract/fixtures.js';
import { StorageUnavailableError } from '../port/errors.js';
import { openPostgresStorage, type PostgresStorage } from './postgres-storage.js';

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('PostgreSQL transactions', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  beforeAll(async () => {
    database = await createTestDatabase();
    storage = await openPostgresStorage({ url: database.url });
  });
  afterAll(async () => {
    await storage.close();
    await database.drop();
  });

  it('runs the loser of a deadlock again, so both transactions complete', async () => {
    const [a, b] = [newUser(), newUser()];
    await storage.users.create(a);
    await storage.users.create(b);
    const firstLocked = signal();
    const secondLocked = signal();
    const attempts = { first: 0, second: 0 };
    const first = storage.transaction(async (tx) => {
      attempts.first += 1;
      await tx.users.findById(a.id, { lock: 'update' });
      firstLocked.resolve();
      await secondLocked.promise;
      await tx.users.setPassword(b.id, 'from-first', false, NOW);
    });
    const second = storage.transaction(async (tx) => {
      attempts.second += 1;
      await tx.users.findById(b.id, { lock: 'update' });
      secondLocked.resolve();
      await firstLocked.promise;
      await tx.users.setPassword(a.id, 'from-second', false, NOW);
    });
    await Promise.all([first, second]);
    assert.equal(attempts.first + attempts.second, 3, `exactly one of them ran twice (first ${attempts.first}, second ${attempts.second})`);
    assert.equal((await storage.users.findById(a.id))?.passwordHash, 'from-second');
    assert.equal((await storage.users.findById(b.id))?.passwordHash, 'from-first');
  });

  it('gives up with StorageUnavailableError when a row stays locked past the lock timeout', async () => {
    const user = newUser();
    await storage.users.create(user);
    const held = signal();
    const release = signal();
    const holder = storage.transaction(async (tx) => {
      await tx.users.findById(user.id, { lock: 'update' });
      held.resolve();
      await release.promise;
    });
    await held.promise;
    try {
      await assert.rejects(
        storage.transaction((tx) => tx.users.setEnabled(user.id, false, NOW)),
        (error: unknown) => error instanceof StorageUnavailableError && /lock timeout/.test(error.message),
      );
    } finally {
      release.resolve();
      await holder;
    }
    assert.equal((await storage.users.findById(user.id))?.enabled, true, 'nothing half-done');
  });

  it('never reports success for a transaction whose statement failed and whose work swallowed the error', async () => {
    await assert.rejects(
      storage.transaction(async (tx) => {
        await tx.users.create(newUser({ id: 'x'.repeat(10), username: 'dup-a' }));
        await tx.users.create(newUser({ id: 'x'.repeat(10), username: 'dup-b' })).catch(() => 'swallowed');
      }),
      /rolled back/,
    );
    assert.equal(await storage.users.findByUsername('dup-a'), null);
  });
});
