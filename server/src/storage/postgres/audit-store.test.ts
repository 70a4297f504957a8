import assert from 'node:assert/strict';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { canonicalEncoding, GENESIS_HASH, hashEncoded } from '../../audit/audit-entry.js';
import { createTestDatabase, type TestDatabase } from '../../testing/postgres-database.js';
import { NOW, newAuditRecord } from '../contract/fixtures.js';
import { openPostgresStorage, type PostgresStorage } from './postgres-storage.js';

describe('PostgreSQL audit pruning', () => {
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

  it('skips at once (0 pruned) while another host holds the prune lock, and prunes once it is free', async () => {
    const records = Array.from({ length: 5 }, (_, index) => newAuditRecord({ timestamp: NOW + index }));
    await storage.audit.append(records.map((record) => ({ record, encoding: canonicalEncoding(record) })), hashEncoded, GENESIS_HASH);
    const otherHost = new pg.Client({ connectionString: database.url });
    otherHost.on('error', () => {});
    await otherHost.connect();
    try {
      await otherHost.query("SELECT pg_advisory_lock(hashtextextended('svc:audit-prune', 0))");
      assert.equal(await storage.audit.pruneOlderThan(NOW + 100, 100, NOW), 0);
      assert.equal(await storage.audit.count(), 5);
      await otherHost.query("SELECT pg_advisory_unlock(hashtextextended('svc:audit-prune', 0))");
      assert.equal(await storage.audit.pruneOlderThan(NOW + 100, 100, NOW), 5);
    } finally {
      await otherHost.end();
    }
  });
});
