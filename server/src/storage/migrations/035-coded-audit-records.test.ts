import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { describe, it } from 'vitest';
import { auditFields, canonicalEncoding, hashEncoded, type AuditEntry } from '../../audit/audit-entry.js';
import { verifyAuditChain } from '../../audit/verify-chain.js';
import { createTestDatabase } from '../../testing/postgres-database.js';
import { NOW, newAuditRecord } from '../contract/fixtures.js';
import type { Storage } from '../port/index.js';
import { PostgresMigrator } from '../postgres/migrator.js';
import { connectionConfig, openPostgresStorage } from '../postgres/postgres-storage.js';
import { SqliteStorage } from '../sqlite/sqlite-storage.js';
import { migrations } from './index.js';

const before035 = migrations.filter((migration) => migration.version < 35);

/** The anchor an older server left after pruning records 1–40. */
const anchor = { id: 40, hash: 'ab'.repeat(32) };

interface OlderRecord {
  id: number;
  record: AuditEntry;
  prevHash: string;
  hash: string;
}

/**
 * Records as a server at migration level 030 wrote them, after a prune: ids from 41, the first one
 * linked to the anchor. Request ids of every form (a UUID, an upper-case one, free text, none), text
 * with characters LIKE treats specially, and empty and null fields.
 */
function olderRecords(firstId = anchor.id + 1): OlderRecord[] {
  const variants: Partial<AuditEntry>[] = [
    { username: 'alice', request_id: '0b7c4f2e-5e1d-4f6a-9c3b-2d8e7f1a6b4c', model_id: 'qwen-7b', model_name: 'Qwen 7B', model_type: 'LLM' },
    { username: 'bob_100%', request_id: '0B7C4F2E-5E1D-4F6A-9C3B-2D8E7F1A6B4C', status: 'denied', http_status: 403, reason: 'permission_denied' },
    { username: null, user_id: null, request_id: 'client-chosen id', event_type: 'ip_banned', category: 'security', action: 'ban', details: JSON.stringify({ n: 1 }) },
    { username: 'Carol', request_id: null, target: '', latency_ms: null, client_ip: '2001:db8::1' },
  ];
  let previous = anchor.hash;
  return variants.map((overrides, index) => {
    const record = newAuditRecord({ timestamp: NOW + index, ...overrides });
    const hash = hashEncoded(previous, canonicalEncoding(record));
    const row = { id: firstId + index, record, prevHash: previous, hash };
    previous = hash;
    return row;
  });
}

const columns = ['id', ...auditFields, 'prev_hash', 'hash'];

/** After the migration: every field reads back as written, the chain verifies and goes on, the filters match. */
async function assertMigrated(storage: Storage, older: OlderRecord[]): Promise<void> {
  const report = await verifyAuditChain(storage.audit);
  assert.deepEqual([report.ok, report.checked], [true, older.length], JSON.stringify(report));
  const everything = { timeFrom: 0, timeTo: Number.MAX_SAFE_INTEGER };
  const { hits, total } = await storage.audit.search(everything, 0, 10);
  assert.equal(total, older.length);
  assert.deepEqual(
    hits.reverse().map(({ id, prev_hash, hash, ...record }) => ({ id, record, prevHash: prev_hash, hash })),
    older,
  );
  assert.deepEqual((await storage.audit.search({ ...everything, user: 'B_1' }, 0, 10)).hits.map((hit) => hit.username), ['bob_100%']);
  assert.equal((await storage.audit.search({ ...everything, user: '0%' }, 0, 10)).total, 1, 'LIKE characters match themselves');
  assert.deepEqual((await storage.audit.search({ ...everything, status: ['denied'] }, 0, 10)).hits.map((hit) => hit.id), [older[1]?.id]);
  assert.equal((await storage.audit.search({ ...everything, excludeAction: ['ban'] }, 0, 10)).total, older.length - 1);
  assert.deepEqual(await storage.audit.distinctValues('username', 0, Number.MAX_SAFE_INTEGER, 10), ['Carol', 'alice', 'bob_100%']);

  const next = newAuditRecord({ timestamp: NOW + 10, username: 'dave' });
  await storage.audit.append([{ record: next, encoding: canonicalEncoding(next) }], hashEncoded, '0'.repeat(64));
  const after = await verifyAuditChain(storage.audit);
  assert.deepEqual([after.ok, after.checked], [true, older.length + 1], JSON.stringify(after));
  const [newest] = (await storage.audit.search({ ...everything, user: 'dave' }, 0, 1)).hits;
  assert.equal(newest?.id, (older.at(-1)?.id ?? 0) + 1, 'the next id follows the last record written before the migration');
  assert.equal(newest?.prev_hash, older.at(-1)?.hash, 'and links to it');
  // Its IPv4 client IP is stored as a number, the older ones coded: filters and filter options see both alike.
  assert.equal(newest?.client_ip, '203.0.113.9');
  const sameIp = older.filter((row) => row.record.client_ip === '203.0.113.9').length + 1;
  assert.equal((await storage.audit.search({ ...everything, clientIp: '3.9' }, 0, 10)).total, sameIp);
  assert.deepEqual(await storage.audit.distinctValues('client_ip', 0, Number.MAX_SAFE_INTEGER, 10), ['2001:db8::1', '203.0.113.9']);
}

/** A SQLite file at level 030 holding `older` and the anchor. */
function olderSqliteFile(path: string, older: OlderRecord[]): void {
  const db = new BetterSqlite3(path);
  try {
    for (const migration of before035) db.exec(migration.sql);
    db.pragma(`user_version = ${Math.max(...before035.map((migration) => migration.version))}`);
    db.prepare('INSERT INTO audit_chain_anchor (id, last_pruned_id, last_pruned_hash, pruned_at) VALUES (1, ?, ?, ?)').run(anchor.id, anchor.hash, NOW);
    const insert = db.prepare(`INSERT INTO audit_log (${columns.join(', ')}) VALUES (?, ${auditFields.map(() => '?').join(', ')}, unhex(?), unhex(?))`);
    for (const row of older) insert.run(row.id, ...auditFields.map((field) => row.record[field]), row.prevHash, row.hash);
  } finally {
    db.close();
  }
}

describe('migration 035 (coded audit records)', () => {
  it('SQLite: codes the records of a database at level 030 in place; they read back unchanged, verify, filter and go on', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-migration-035-'));
    try {
      const path = join(home, 'auth.db');
      const older = olderRecords();
      olderSqliteFile(path, older);
      const storage = SqliteStorage.open(path);
      try {
        const stored = storage.database.prepare('SELECT typeof(request_id) AS type, length(request_id) AS length FROM audit_entries ORDER BY id').all();
        assert.deepEqual(stored, [
          { type: 'blob', length: 16 },
          { type: 'text', length: 36 },
          { type: 'text', length: 16 },
          { type: 'null', length: null },
        ]);
        assert.equal(storage.database.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'audit_log' AND type = 'view'").pluck().get(), 1);
        await assertMigrated(storage, older);
      } finally {
        await storage.close();
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('SQLite: a database whose ids restarted at 1 after a full prune is renumbered after the anchor, and verifies', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-migration-035-'));
    try {
      const path = join(home, 'auth.db');
      const restarted = olderRecords(1);
      olderSqliteFile(path, restarted);
      const storage = SqliteStorage.open(path);
      try {
        await assertMigrated(storage, restarted.map((row, index) => ({ ...row, id: anchor.id + 1 + index })));
      } finally {
        await storage.close();
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: codes the records of a database at level 030 in place; they read back unchanged, verify, filter and go on', async () => {
    const database = await createTestDatabase({ empty: true });
    try {
      const older = olderRecords();
      await new PostgresMigrator(connectionConfig({ url: database.url }), { migrations: before035 }).migrate();
      const client = new pg.Client({ connectionString: database.url });
      client.on('error', () => {});
      await client.connect();
      try {
        await client.query('INSERT INTO audit_chain_anchor (id, last_pruned_id, last_pruned_hash, pruned_at) VALUES (1, $1, $2, $3)', [anchor.id, anchor.hash, NOW]);
        for (const row of older) {
          await client.query(
            `INSERT INTO audit_log (${columns.join(', ')}) VALUES (${columns.map((column, i) => (column.endsWith('hash') ? `decode($${i + 1}, 'hex')` : `$${i + 1}`)).join(', ')})`,
            [row.id, ...auditFields.map((field) => row.record[field]), row.prevHash, row.hash],
          );
        }
        await client.query('UPDATE audit_chain_head SET last_id = $1, last_hash = $2', [older.at(-1)?.id, older.at(-1)?.hash]);
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
        const { rows } = await check.query<{ uuid: string | null; text: string | null }>('SELECT request_uuid::text AS uuid, request_text AS text FROM audit_entries ORDER BY id LIMIT 4');
        assert.deepEqual(rows, [
          { uuid: '0b7c4f2e-5e1d-4f6a-9c3b-2d8e7f1a6b4c', text: null },
          { uuid: null, text: '0B7C4F2E-5E1D-4F6A-9C3B-2D8E7F1A6B4C' },
          { uuid: null, text: 'client-chosen id' },
          { uuid: null, text: null },
        ]);
      } finally {
        await check.end();
      }
    } finally {
      await database.drop();
    }
  });
});
