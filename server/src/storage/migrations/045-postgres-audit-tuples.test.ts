import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { auditFields, canonicalEncoding, hashEncoded, type AuditEntry } from '../../audit/audit-entry.js';
import { verifyAuditChain } from '../../audit/verify-chain.js';
import { withPostgresClient } from '../../testing/postgres-cluster.js';
import { createTestDatabase } from '../../testing/postgres-database.js';
import { NOW, newAuditRecord } from '../contract/fixtures.js';
import type { Storage } from '../port/index.js';
import { PostgresMigrator } from '../postgres/migrator.js';
import { connectionConfig, openPostgresStorage } from '../postgres/postgres-storage.js';
import { migrations } from './index.js';

const before035 = migrations.filter((migration) => migration.version < 35);
const before045 = migrations.filter((migration) => migration.version < 45);

/** The anchor an older server left after pruning records 1–40. */
const anchor = { id: 40, hash: 'cd'.repeat(32) };

interface OlderRecord {
  id: number;
  record: AuditEntry;
  prevHash: string;
  hash: string;
}

/**
 * Records of every form the coded layout of 035 holds: every request id form, latencies exact to the
 * microsecond and not (0.1 + 0.2, a huge one, none), statuses other than success with and without an
 * HTTP status, a target, details, LIKE characters, empty and null fields, an IPv6 client, callers with
 * and without a key, a record with no user at all.
 */
function olderRecords(): OlderRecord[] {
  const variants: Partial<AuditEntry>[] = [
    { username: 'alice', user_id: 'u-1', request_id: '0b7c4f2e-5e1d-4f6a-9c3b-2d8e7f1a6b4c', model_id: 'qwen-7b', model_name: 'Qwen 7B', model_type: 'LLM', latency_ms: 12.345 },
    { username: 'bob_100%', user_id: 'u-2', api_key_id: 'k-1', api_key_name: 'ci key', api_key_prefix: 'sk-svc-Ab12', request_id: '0B7C4F2E-5E1D-4F6A-9C3B-2D8E7F1A6B4C', status: 'denied', http_status: 403, reason: 'permission_denied', latency_ms: 0.1 + 0.2 },
    { username: null, user_id: null, request_id: 'client-chosen id', event_type: 'ip_banned', category: 'security', action: 'ban', status: 'banned', http_status: null, details: JSON.stringify({ n: 1 }), latency_ms: 3e9 },
    { username: 'Carol', user_id: 'u-3', request_id: null, target: '', latency_ms: null, client_ip: '2001:db8::1', method: 'DELETE', route: '/v1/admin/users/{user_id}', endpoint: '/v1/admin/users/u-9', action: 'deleteUser' },
    { username: 'alice', user_id: 'u-1', api_key_id: 'k-1', api_key_name: 'ci key', api_key_prefix: 'sk-svc-Ab12', status: 'denied', http_status: 403, reason: 'permission_denied', latency_ms: 0 },
    { username: 'alice', user_id: 'u-1', model_id: 'qwen-7b', model_name: 'Qwen 7B', model_type: 'LLM', latency_ms: -0.5, target: 'x' },
    { username: 'alice', user_id: 'u-1', latency_ms: 1 },
  ];
  let previous = anchor.hash;
  return variants.map((overrides, index) => {
    const record = newAuditRecord({ timestamp: NOW + index, ...overrides });
    const hash = hashEncoded(previous, canonicalEncoding(record));
    const row = { id: anchor.id + 1 + index, record, prevHash: previous, hash };
    previous = hash;
    return row;
  });
}

const columns = ['id', ...auditFields, 'prev_hash', 'hash'];
const everything = { timeFrom: 0, timeTo: Number.MAX_SAFE_INTEGER };

/** A database at level 040 (records coded per field by 035) holding `older`, the anchor and the chain head. */
async function olderDatabase(url: string, older: OlderRecord[]): Promise<void> {
  await new PostgresMigrator(connectionConfig({ url }), { migrations: before035 }).migrate();
  await withPostgresClient(url, async (client) => {
    await client.query('INSERT INTO audit_chain_anchor (id, last_pruned_id, last_pruned_hash, pruned_at) VALUES (1, $1, $2, $3)', [anchor.id, anchor.hash, NOW]);
    for (const row of older) {
      await client.query(
        `INSERT INTO audit_log (${columns.join(', ')}) VALUES (${columns.map((column, i) => (column.endsWith('hash') ? `decode($${i + 1}, 'hex')` : `$${i + 1}`)).join(', ')})`,
        [row.id, ...auditFields.map((field) => row.record[field]), row.prevHash, row.hash],
      );
    }
    await client.query('UPDATE audit_chain_head SET last_id = $1, last_hash = $2', [older.at(-1)?.id, older.at(-1)?.hash]);
  });
  await new PostgresMigrator(connectionConfig({ url }), { migrations: before045 }).migrate();
  // A record as the 035 store wrote it: its IPv4 client as a number in client_ipv4, not coded.
  await withPostgresClient(url, (client) => client.query('UPDATE audit_entries SET client_ipv4 = (203 << 24) | (113 << 8) | 9, client_ip = NULL WHERE id = $1', [older[0]?.id]));
}

describe('migration 045 (PostgreSQL audit tuples)', () => {
  it('codes the records of a database at level 040 in place by groups; they read back unchanged, verify, filter and go on', async () => {
    const database = await createTestDatabase({ empty: true });
    try {
      const older = olderRecords();
      await olderDatabase(database.url, older);
      const storage = await openPostgresStorage({ url: database.url });
      try {
        await assertMigrated(storage, older);
      } finally {
        await storage.close();
      }
      await withPostgresClient(database.url, async (client) => {
        const { rows } = await client.query<{ id: string; shape: number; caller: number | null; api_key: number | null; latency_us: number | null; latency_ms: number | null; client_ipv4: number | null }>(
          'SELECT id, shape, caller, api_key, latency_us, latency_ms, client_ipv4 FROM audit_entries ORDER BY id LIMIT 7',
        );
        assert.deepEqual(
          rows.map((row) => [row.shape < 0, row.caller !== null, row.api_key !== null, row.latency_us, row.latency_ms]),
          [
            [false, true, false, 12_345, null],
            [true, true, true, null, 0.1 + 0.2],
            [true, false, false, null, 3e9],
            [false, true, false, null, null],
            [true, true, true, 0, null],
            [false, true, false, -500, null],
            [false, true, false, 1_000, null],
          ],
          'shapes that are not a success have negative ids; latencies exact to the microsecond are integers',
        );
        assert.equal(rows[0]?.client_ipv4, (203 << 24) | (113 << 8) | 9);
        assert.equal(rows[0]?.caller, rows[4]?.caller, 'one caller tuple for alice');
        assert.equal(rows[1]?.api_key, rows[4]?.api_key, 'one key tuple for the key');
        assert.equal(rows[1]?.shape, rows[4]?.shape, 'one shape for the same call refused the same way');
        const tables = await client.query<{ name: string }>("SELECT relname AS name FROM pg_class WHERE relname IN ('audit_entries_045', 'audit_strings_by_value', 'audit_exceptions_by_time') ORDER BY 1");
        assert.deepEqual(tables.rows.map((row) => row.name), ['audit_exceptions_by_time', 'audit_strings_by_value']);
      });
    } finally {
      await database.drop();
    }
  });

  it('converts an empty audit trail, and the first append starts the chain', async () => {
    const database = await createTestDatabase({ empty: true });
    try {
      await new PostgresMigrator(connectionConfig({ url: database.url }), { migrations: before045 }).migrate();
      const storage = await openPostgresStorage({ url: database.url });
      try {
        const record = newAuditRecord({ status: 'login_failed', http_status: 401 });
        await storage.audit.append([{ record, encoding: canonicalEncoding(record) }], hashEncoded, '0'.repeat(64));
        const report = await verifyAuditChain(storage.audit);
        assert.deepEqual([report.ok, report.checked], [true, 1], JSON.stringify(report));
        const { hits } = await storage.audit.search({ ...everything, status: ['login_failed'] }, 0, 10);
        assert.deepEqual(hits.map(({ id, prev_hash, hash, ...rest }) => rest), [record]);
      } finally {
        await storage.close();
      }
    } finally {
      await database.drop();
    }
  });
});

/** After the migration: every field reads back as written, the chain verifies and goes on, the filters match. */
async function assertMigrated(storage: Storage, older: OlderRecord[]): Promise<void> {
  const report = await verifyAuditChain(storage.audit);
  assert.deepEqual([report.ok, report.checked], [true, older.length], JSON.stringify(report));
  const { hits, total } = await storage.audit.search(everything, 0, 10);
  assert.equal(total, older.length);
  assert.deepEqual(
    hits.reverse().map(({ id, prev_hash, hash, ...record }) => ({ id, record, prevHash: prev_hash, hash })),
    older,
  );
  const ids = async (filter: Parameters<Storage['audit']['search']>[0]): Promise<number[]> =>
    (await storage.audit.search({ ...everything, ...filter }, 0, 10)).hits.map((hit) => hit.id).sort((a, b) => a - b);
  const idOf = (index: number): number => older[index]?.id ?? 0;
  assert.deepEqual(await ids({ ...everything, user: 'B_1' }), [idOf(1)]);
  assert.deepEqual(await ids({ ...everything, user: '0%' }), [idOf(1)], 'LIKE characters match themselves');
  assert.deepEqual(await ids({ ...everything, user: 'ALI' }), [idOf(0), idOf(4), idOf(5), idOf(6)]);
  assert.deepEqual(await ids({ ...everything, apiKeyName: 'CI' }), [idOf(1), idOf(4)]);
  assert.deepEqual(await ids({ ...everything, modelName: 'qwen 7' }), [idOf(0), idOf(5)]);
  assert.deepEqual(await ids({ ...everything, modelType: ['LLM'] }), [idOf(0), idOf(5)]);
  assert.deepEqual(await ids({ ...everything, status: ['denied'] }), [idOf(1), idOf(4)]);
  assert.deepEqual(await ids({ ...everything, status: ['denied', 'success'] }), [idOf(0), idOf(1), idOf(3), idOf(4), idOf(5), idOf(6)]);
  assert.deepEqual(await ids({ ...everything, status: ['denied'], user: 'alice' }), [idOf(4)]);
  assert.deepEqual(await ids({ ...everything, status: ['no such status'] }), []);
  assert.deepEqual(await ids({ ...everything, category: ['security'], eventType: ['ip_banned'] }), [idOf(2)]);
  assert.deepEqual(await ids({ ...everything, action: ['deleteUser'] }), [idOf(3)]);
  assert.equal((await storage.audit.search({ ...everything, excludeAction: ['ban'] }, 0, 10)).total, older.length - 1);
  assert.deepEqual(await ids({ ...everything, clientIp: '3.9' }), [idOf(0), idOf(1), idOf(2), idOf(4), idOf(5), idOf(6)]);
  assert.deepEqual(await ids({ ...everything, clientIp: 'DB8' }), [idOf(3)]);
  assert.deepEqual(await storage.audit.distinctValues('username', 0, Number.MAX_SAFE_INTEGER, 10), ['Carol', 'alice', 'bob_100%']);
  assert.deepEqual(await storage.audit.distinctValues('status', 0, Number.MAX_SAFE_INTEGER, 10), ['banned', 'denied', 'success']);
  assert.deepEqual(await storage.audit.distinctValues('api_key_name', 0, Number.MAX_SAFE_INTEGER, 10), ['ci key']);
  assert.deepEqual(await storage.audit.distinctValues('client_ip', 0, Number.MAX_SAFE_INTEGER, 10), ['2001:db8::1', '203.0.113.9']);

  const next = newAuditRecord({ timestamp: NOW + 10, username: 'dave', status: 'denied', http_status: 403 });
  await storage.audit.append([{ record: next, encoding: canonicalEncoding(next) }], hashEncoded, '0'.repeat(64));
  const after = await verifyAuditChain(storage.audit);
  assert.deepEqual([after.ok, after.checked], [true, older.length + 1], JSON.stringify(after));
  const [newest] = (await storage.audit.search({ ...everything, user: 'dave', status: ['denied'] }, 0, 1)).hits;
  assert.equal(newest?.id, (older.at(-1)?.id ?? 0) + 1, 'the next id follows the last record written before the migration');
  assert.equal(newest?.prev_hash, older.at(-1)?.hash, 'and links to it');
}
