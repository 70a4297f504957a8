import assert from 'node:assert/strict';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { canonicalEncoding, GENESIS_HASH, hashEncoded, type AuditEntry } from '../../audit/audit-entry.js';
import { verifyAuditChain } from '../../audit/verify-chain.js';
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

describe('PostgreSQL audit tuples after a pruning', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  let client: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase();
    storage = await openPostgresStorage({ url: database.url });
    client = new pg.Client({ connectionString: database.url });
    client.on('error', () => {});
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await storage.close();
    await database.drop();
  });

  const append = (records: AuditEntry[]): Promise<void> =>
    storage.audit.append(records.map((record) => ({ record, encoding: canonicalEncoding(record) })), hashEncoded, GENESIS_HASH);
  const tuplesHolding = async (value: string): Promise<number> =>
    Number((await client.query<{ count: string }>('SELECT count(*) AS count FROM audit_tuples WHERE $1 = ANY (members)', [value])).rows[0]?.count);

  it('deletes the shapes, callers and keys only pruned records used; a writer that cached them interns them again', async () => {
    // No string only the pruned records use: what must make the writer forget its cache is the tuples alone.
    const gone = newAuditRecord({ timestamp: NOW, username: 'gone', api_key_name: 'gone key', endpoint: '/v1/gone', status: 'denied', http_status: 403, client_ip: '2001:db8::8' });
    const kept = newAuditRecord({ timestamp: NOW + 1_000, username: 'kept', client_ip: '2001:db8::8' });
    await append([gone, { ...gone, timestamp: NOW + 1 }, kept]);
    assert.equal(await storage.audit.pruneOlderThan(NOW + 500, 100, NOW), 2);
    assert.equal(await storage.audit.pruneUnusedStrings(), 3, "the pruned records' shape, caller and key");
    for (const value of ['gone', 'gone key', '/v1/gone']) assert.equal(await tuplesHolding(value), 0, value);
    assert.equal(await tuplesHolding('kept'), 1);
    assert.deepEqual((await client.query<{ value: string }>('SELECT value FROM audit_strings')).rows, [{ value: '2001:db8::8' }], 'a client IP still used');

    const back = { ...gone, timestamp: NOW + 2_000 };
    await append([back]);
    const { hits } = await storage.audit.search({ timeFrom: NOW + 1_500, timeTo: NOW + 3_000 }, 0, 10);
    assert.deepEqual(hits.map(({ id, prev_hash, hash, ...record }) => record), [back], 'every field reads back: the tuples were interned again');
    const report = await verifyAuditChain(storage.audit);
    assert.deepEqual([report.ok, report.checked], [true, 2], JSON.stringify(report));
  });
});
