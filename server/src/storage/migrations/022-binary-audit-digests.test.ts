import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { describe, it } from 'vitest';
import { auditFields, canonicalEncoding, GENESIS_HASH, hashEncoded, type AuditEntry } from '../../audit/audit-entry.js';
import { verifyAuditChain } from '../../audit/verify-chain.js';
import { createTestDatabase } from '../../testing/postgres-database.js';
import { NOW, newAuditRecord } from '../contract/fixtures.js';
import type { Storage } from '../port/index.js';
import { PostgresMigrator } from '../postgres/migrator.js';
import { connectionConfig, openPostgresStorage } from '../postgres/postgres-storage.js';
import { SqliteStorage } from '../sqlite/sqlite-storage.js';
import { migrations } from './index.js';

const before022 = migrations.filter((migration) => migration.version < 22);

/** Records as an older server wrote them: the chain in hex, one link per record. */
function olderRecords(): { record: AuditEntry; prevHash: string; hash: string }[] {
  let previous = GENESIS_HASH;
  return ['alice', 'bob', 'carol'].map((username, index) => {
    const record = newAuditRecord({ timestamp: NOW + index, username, details: JSON.stringify({ n: index }) });
    const hash = hashEncoded(previous, canonicalEncoding(record));
    const row = { record, prevHash: previous, hash };
    previous = hash;
    return row;
  });
}

const columns = [...auditFields, 'prev_hash', 'hash'];

/** After the migration: the old records verify, read back with the same digests, and the chain goes on. */
async function assertMigrated(storage: Storage, older: ReturnType<typeof olderRecords>): Promise<void> {
  const report = await verifyAuditChain(storage.audit);
  assert.deepEqual([report.ok, report.checked], [true, 3], JSON.stringify(report));
  const { hits } = await storage.audit.search({ timeFrom: 0, timeTo: Number.MAX_SAFE_INTEGER }, 0, 10);
  assert.deepEqual(
    hits.map((hit) => [hit.username, hit.prev_hash, hit.hash]).reverse(),
    older.map((row) => [row.record.username, row.prevHash, row.hash]),
  );
  const next = newAuditRecord({ timestamp: NOW + 10, username: 'dave' });
  await storage.audit.append([{ record: next, encoding: canonicalEncoding(next) }], hashEncoded, GENESIS_HASH);
  const after = await verifyAuditChain(storage.audit);
  assert.deepEqual([after.ok, after.checked], [true, 4], JSON.stringify(after));
  const [newest] = (await storage.audit.search({ timeFrom: 0, timeTo: Number.MAX_SAFE_INTEGER, user: 'dave' }, 0, 1)).hits;
  assert.equal(newest?.prev_hash, older.at(-1)?.hash, 'the new record links to the last record written before the migration');
}

describe('migration 022 (binary audit digests)', () => {
  it('SQLite: converts records written before it in place; they verify, read back in hex, and stored as 32 bytes', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-migration-022-'));
    try {
      const path = join(home, 'auth.db');
      const older = olderRecords();
      const db = new BetterSqlite3(path);
      for (const migration of before022) db.exec(migration.sql);
      db.pragma(`user_version = ${Math.max(...before022.map((migration) => migration.version))}`);
      const insert = db.prepare(`INSERT INTO audit_log (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
      for (const row of older) insert.run(...auditFields.map((field) => row.record[field]), row.prevHash, row.hash);
      db.close();

      const storage = SqliteStorage.open(path);
      try {
        const stored = storage.database.prepare('SELECT typeof(prev_hash) AS prevType, length(hash) AS length FROM audit_log').all();
        assert.deepEqual(stored, older.map(() => ({ prevType: 'blob', length: 32 })));
        // Since migration 035 the records (and their indexes) live in audit_entries, read through the view audit_log.
        const indexes = storage.database.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'audit_entries' ORDER BY name").pluck().all();
        assert.deepEqual(indexes, ['audit_by_status_time', 'audit_by_time']);
        await assertMigrated(storage, older);
      } finally {
        await storage.close();
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: converts records written before it in place; they verify, read back in hex, and stored as 32 bytes', async () => {
    const database = await createTestDatabase({ empty: true });
    try {
      const older = olderRecords();
      await new PostgresMigrator(connectionConfig({ url: database.url }), { migrations: before022 }).migrate();
      const client = new pg.Client({ connectionString: database.url });
      client.on('error', () => {});
      await client.connect();
      try {
        for (const [index, row] of older.entries()) {
          await client.query(
            `INSERT INTO audit_log (id, ${columns.join(', ')}) VALUES (${[0, ...columns].map((_, i) => `$${i + 1}`).join(', ')})`,
            [index + 1, ...auditFields.map((field) => row.record[field]), row.prevHash, row.hash],
          );
        }
        await client.query('UPDATE audit_chain_head SET last_id = $1, last_hash = $2', [older.length, older.at(-1)?.hash]);
      } finally {
        await client.end();
      }
      const storage = await openPostgresStorage({ url: database.url });
      try {
        await assertMigrated(storage, older);
      } finally {
        await storage.close();
      }
      const check = new pg.Client({ connectionString: database.url });
      check.on('error', () => {});
      await check.connect();
      try {
        const { rows } = await check.query<{ type: string; length: number }>(
          "SELECT pg_typeof(hash)::text AS type, octet_length(prev_hash) AS length FROM audit_log ORDER BY id",
        );
        assert.deepEqual(rows, [1, 2, 3, 4].map(() => ({ type: 'bytea', length: 32 })));
      } finally {
        await check.end();
      }
    } finally {
      await database.drop();
    }
  });
});
