import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { describe, inject, it } from 'vitest';
import { startLocalPostgresCluster, startPostgresCluster } from './postgres-cluster.js';
import { createTestDatabase } from './postgres-database.js';

async function query<Row extends object>(url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<Row>(text)).rows;
  } finally {
    await client.end();
  }
}

describe('the PostgreSQL test harness', () => {
  it('gives a test its own migrated database, copied from the run template', async () => {
    const database = await createTestDatabase();
    try {
      const tables = await query<{ table_name: string }>(database.url, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
      assert.ok(tables.some((row) => row.table_name === 'users'));
      assert.ok(tables.some((row) => row.table_name === 'cache_epochs'));
    } finally {
      await database.drop();
    }
  });

  it('starts a local server that answers, survives a stop and start on the same port, and leaves nothing behind', async () => {
    const cluster = await startLocalPostgresCluster();
    let stopped = false;
    try {
      assert.ok(!cluster.url.includes('undefined'));
      const url = await cluster.createDatabase();
      const [version] = await query<{ server_version_num: string }>(url, 'SHOW server_version_num');
      assert.ok(Number(version?.server_version_num) >= 130000);
      const [{ directory } = { directory: '' }] = await query<{ directory: string }>(cluster.url, "SELECT current_setting('data_directory') AS directory");
      await cluster.halt();
      await assert.rejects(query(url, 'SELECT 1'));
      await cluster.resume();
      assert.deepEqual(await query(url, 'SELECT 1 AS one'), [{ one: 1 }]);
      await cluster.dropDatabase(url);
      await cluster.stop();
      stopped = true;
      assert.equal(existsSync(directory), false);
    } finally {
      if (!stopped) await cluster.stop();
    }
  });

  it('uses the server SVC_TEST_DATABASE_URL names instead of starting one, and will not stop it', async () => {
    const external = inject('svcPostgresUrl');
    const cluster = await startPostgresCluster({ SVC_TEST_DATABASE_URL: external });
    assert.equal(cluster.local, false);
    assert.equal(cluster.url, external);
    const url = await cluster.createDatabase();
    assert.deepEqual(await query(url, 'SELECT 1 AS one'), [{ one: 1 }]);
    await assert.rejects(cluster.halt(), /cannot halt the server named by SVC_TEST_DATABASE_URL/);
    await cluster.stop();
    await assert.rejects(query(url, 'SELECT 1'), /does not exist/);
    assert.deepEqual(await query(external, 'SELECT 1 AS one'), [{ one: 1 }], 'the server itself keeps running');
  });
});
