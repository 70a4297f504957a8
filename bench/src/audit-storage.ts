/**
 * Audit storage size: appends N realistic records through each storage adapter (SQLite file, and
 * PostgreSQL when one can be started or `SVC_TEST_DATABASE_URL` names one), in the writer's batch
 * size and with the hash chain, and reports the bytes each record costs on disk with its indexes:
 * SQLite from `dbstat` (pages of every `audit*` table and index, after a WAL checkpoint), PostgreSQL
 * from `pg_total_relation_size` of every `audit*` table (heap, TOAST and indexes) after a VACUUM.
 *
 * Runnable alone: `npx tsx bench/src/audit-storage.ts [records]` (default 200,000).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { appendEntries, openStorage, SqliteStorage, type AuditEntry } from '@svc/server/internals';
import { startPostgresCluster } from '@svc/server/testing';

/** The size of the records on one backend. */
export interface AuditStorageSize {
  backend: 'sqlite' | 'postgres';
  records: number;
  /** Bytes of the audit tables and their indexes (after minus before the append). */
  bytes: number;
  bytesPerRecord: number;
}

/** What the benchmark returns: one line per backend it could reach. */
export interface AuditStorageReport {
  sizes: AuditStorageSize[];
  /** Why PostgreSQL was not measured, when it was not. */
  postgresSkipped: string | null;
}

/** The writer thread's batch size. */
const BATCH = 512;
const DAY = 86_400_000;
const routes = [
  { method: 'POST', route: '/v1/chat/completions', action: 'chatCompletions', model_type: 'LLM' },
  { method: 'POST', route: '/v1/embeddings', action: 'createEmbeddings', model_type: 'embedding' },
  { method: 'GET', route: '/v1/models', action: 'listModels', model_type: null },
  { method: 'POST', route: '/v1/completions', action: 'completions', model_type: 'LLM' },
] as const;

/** A record such as a busy deployment writes: mostly API calls with keys, some logins and refusals. */
export function realisticAuditEntry(i: number, total: number, now: number): AuditEntry {
  const user = `user${String(i % 997).padStart(4, '0')}`;
  const call = routes[i % routes.length] as (typeof routes)[number];
  const failed = i % 20 === 19;
  const login = i % 50 === 7;
  const model = call.model_type === null ? null : i % 20;
  return {
    timestamp: now - DAY + Math.floor((i / total) * DAY),
    event_type: login ? 'login' : 'api_call',
    category: login ? 'auth' : call.model_type === null ? 'management' : 'inference',
    auth_type: login ? 'password' : 'api_key',
    user_id: `0b7c${String(i % 997).padStart(4, '0')}-5e1d-4f6a-9c3b-2d8e7f1a6b4c`,
    username: user,
    api_key_id: login ? null : `k7Ab${String(i % 5000).padStart(4, '0')}`,
    api_key_name: login ? null : `ci key ${i % 5000}`,
    api_key_prefix: login ? null : 'sk-svc-Ab12',
    model_id: model === null || login ? null : `qwen2.5-${model}`,
    model_name: model === null || login ? null : `Qwen 2.5 ${model}B`,
    model_type: login ? null : call.model_type,
    method: login ? 'POST' : call.method,
    route: login ? '/v1/auth/login' : call.route,
    endpoint: login ? '/v1/auth/login' : call.route,
    action: login ? 'login' : call.action,
    target: null,
    status: failed ? 'denied' : 'success',
    http_status: failed ? 403 : 200,
    reason: failed ? 'permission_denied' : null,
    request_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    latency_ms: 3 + (i % 400) / 10,
    client_ip: `10.0.${(i >> 8) & 255}.${i & 255}`,
    details: null,
  };
}

async function appendAll(append: (entries: AuditEntry[]) => Promise<void>, records: number): Promise<void> {
  const now = Date.now();
  for (let start = 0; start < records; start += BATCH) {
    const entries: AuditEntry[] = [];
    for (let i = start; i < Math.min(records, start + BATCH); i += 1) entries.push(realisticAuditEntry(i, records, now));
    await append(entries);
  }
}

/** Bytes of the pages of every audit table and index of a SQLite file. */
function sqliteAuditBytes(storage: SqliteStorage): number {
  storage.database.pragma('wal_checkpoint(TRUNCATE)');
  return storage.database
    .prepare("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name LIKE 'audit%')")
    .pluck()
    .get() as number;
}

/** Measures SQLite: a fresh file, `records` records through the adapter. */
export async function measureSqliteAuditStorage(records: number): Promise<AuditStorageSize> {
  const home = await mkdtemp(join(tmpdir(), 'svc-bench-audit-storage-'));
  const storage = SqliteStorage.open(join(home, 'auth.db'));
  try {
    const before = sqliteAuditBytes(storage);
    await appendAll((entries) => appendEntries(storage.audit, entries), records);
    const bytes = sqliteAuditBytes(storage) - before;
    return { backend: 'sqlite', records, bytes, bytesPerRecord: bytes / records };
  } finally {
    await storage.close();
    await rm(home, { recursive: true, force: true });
  }
}

async function postgresAuditBytes(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE');
    const result = await client.query<{ bytes: string }>(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind = 'r' AND c.relname LIKE 'audit%' AND n.nspname = current_schema()`,
    );
    return Number(result.rows[0]?.bytes ?? 0);
  } finally {
    await client.end();
  }
}

/** Measures PostgreSQL at `url` (an empty database the benchmark may fill). */
export async function measurePostgresAuditStorage(url: string, records: number): Promise<AuditStorageSize> {
  const storage = await openStorage({ kind: 'postgres', url, poolMax: 4 });
  try {
    const before = await postgresAuditBytes(url);
    await appendAll((entries) => appendEntries(storage.audit, entries), records);
    const bytes = (await postgresAuditBytes(url)) - before;
    return { backend: 'postgres', records, bytes, bytesPerRecord: bytes / records };
  } finally {
    await storage.close();
  }
}

/** Measures every backend it can reach; PostgreSQL is skipped (and said why) when no server can be started. */
export async function benchmarkAuditStorage(records = 200_000): Promise<AuditStorageReport> {
  const sizes = [await measureSqliteAuditStorage(records)];
  let postgresSkipped: string | null = null;
  let cluster: Awaited<ReturnType<typeof startPostgresCluster>> | null = null;
  try {
    cluster = await startPostgresCluster();
  } catch (error) {
    postgresSkipped = error instanceof Error ? error.message : String(error);
  }
  if (cluster !== null) {
    try {
      const url = await cluster.createDatabase();
      sizes.push(await measurePostgresAuditStorage(url, records));
    } finally {
      await cluster.stop();
    }
  }
  return { sizes, postgresSkipped };
}

/** The report as printed lines (goal: under 200 bytes per record with indexes, on every backend). */
export function formatAuditStorage(report: AuditStorageReport): string[] {
  const lines = report.sizes.map(
    (size) =>
      `${size.backend.padEnd(8)} ${size.records.toLocaleString('en-US')} records  ${(size.bytes / 1e6).toFixed(1)} MB  ${size.bytesPerRecord.toFixed(0)} bytes/record   (goal < 200: ${size.bytesPerRecord < 200 ? 'met' : 'NOT met'})`,
  );
  if (report.postgresSkipped !== null) lines.push(`postgres skipped: ${report.postgresSkipped}`);
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const records = Number(process.argv[2] ?? 200_000);
  console.log(`Audit storage: ${records.toLocaleString('en-US')} realistic records appended through each adapter, bytes per record with indexes`);
  for (const line of formatAuditStorage(await benchmarkAuditStorage(records))) console.log(line);
}
