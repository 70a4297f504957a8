import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openStorage, storageConfigOf, type StorageConfig } from '@svc/server/internals';
import { setupAdmin, startPostgresCluster, startTestServer, type PostgresCluster, type TestServer } from '@svc/server/testing';
import { seedKeys } from './key-seeding.js';

let cluster: PostgresCluster;

beforeAll(async () => {
  cluster = await startPostgresCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

/** A real server on each backend: its own SQLite file, or a database of its own in the PostgreSQL started for this file. */
const backends: Record<'sqlite' | 'postgres', () => Promise<Record<string, string>>> = {
  sqlite: async () => ({}),
  postgres: async () => ({
    SVC_DATABASE_URL: await cluster.createDatabase(),
    SVC_AUTH_JWT_SECRET_KEY: randomBytes(32).toString('hex'),
    SVC_AUTH_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  }),
};

for (const [backend, environment] of Object.entries(backends)) {
  describe(`seeding benchmark keys on ${backend}`, () => {
    let server: TestServer;
    let database: StorageConfig;

    beforeAll(async () => {
      server = await startTestServer({ env: await environment() });
      database = storageConfigOf(server.config);
    });

    afterAll(async () => {
      await server?.close();
    });

    it('stores keys the server verifies, owned by the given user, across several batches', async () => {
      const admin = await setupAdmin(server);
      const storage = await openStorage(database);
      try {
        const kept = await seedKeys(storage, database, { userId: admin.id, count: 25, keepEvery: 4, batchSize: 10 });
        assert.equal(kept.length, 7, 'keys 0, 4, …, 24 are kept');
        assert.equal(new Set(kept).size, kept.length);
        assert.equal(await storage.keys.count(), 25);
        for (const key of kept) {
          const me = await server.request('GET', '/v1/auth/me', { token: key });
          assert.equal(me.status, 200, me.text);
          assert.equal(me.body.username, admin.username);
          assert.equal(me.body.auth_type, 'api_key');
          assert.equal(me.body.api_key.key_prefix, key.slice(0, 11));
          assert.equal(me.body.api_key.name, 'bench');
        }
      } finally {
        await storage.close();
      }
    });

    it('refuses to seed keys for an owner that does not exist, leaving no key behind', async () => {
      const storage = await openStorage(database);
      try {
        const before = await storage.keys.count();
        await assert.rejects(seedKeys(storage, database, { userId: randomUUID(), count: 3, keepEvery: 1 }), /does not exist|does the owner/);
        assert.equal(await storage.keys.count(), before);
      } finally {
        await storage.close();
      }
    });
  });
}
