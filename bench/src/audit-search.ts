/**
 * Audit search at scale: 1,000,000 records over 30 days in a real SQLite file (written through the
 * server's own repository, hash chain included), then GET /v1/audit/search against a real server
 * process filtered by user (substring), status and a time range, timed from the client.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { appendEntries, SqliteStorage, type AuditEntry } from '@svc/server/internals';
import { contractClient, setupAdmin, startServerProcess } from '@svc/server/testing';

const DAY = 86_400_000;
const statuses = ['success', 'success', 'success', 'success', 'success', 'success', 'success', 'success', 'success', 'success', 'success', 'success', 'success', 'success', 'success', 'success', 'success', 'login_failed', 'denied', 'error'];

function syntheticEntry(i: number, total: number, now: number): AuditEntry {
  // 997 users (prime) against 20 statuses, so every user has every status.
  const user = `user${String(i % 997).padStart(4, '0')}`;
  const status = statuses[i % statuses.length] as string;
  return {
    timestamp: now - 30 * DAY + Math.floor((i / total) * 30 * DAY),
    event_type: 'api_call',
    category: status === 'login_failed' ? 'auth' : 'inference',
    auth_type: 'api_key',
    user_id: `id-${user}`,
    username: user,
    api_key_id: `key-${i % 5000}`,
    api_key_name: `key ${i % 5000}`,
    api_key_prefix: 'sk-svc-Ab12',
    model_id: `model-${i % 20}`,
    model_name: `qwen-${i % 20}`,
    model_type: 'LLM',
    method: 'POST',
    route: '/v1/chat/completions',
    endpoint: '/v1/chat/completions',
    action: 'chatCompletions',
    target: null,
    status,
    http_status: status === 'success' ? 200 : status === 'denied' ? 403 : status === 'login_failed' ? 401 : 500,
    reason: status === 'success' ? null : status,
    request_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    latency_ms: 12.5,
    client_ip: `10.0.${(i >> 8) & 255}.${i & 255}`,
    details: null,
  };
}

/** Latency figures of one query shape. */
export interface SearchLatency {
  label: string;
  p50Ms: number;
  p95Ms: number;
  total: number;
}

/** What the benchmark returns. */
export interface AuditSearchReport {
  records: number;
  seedSeconds: number;
  queries: SearchLatency[];
}

/** Seeds `records` records and times `samples` searches of each query shape. */
export async function benchmarkAuditSearch(records: number, samples = 60): Promise<AuditSearchReport> {
  const home = await mkdtemp(join(tmpdir(), 'svc-bench-audit-search-'));
  try {
    const databasePath = join(home, 'auth', 'auth.db');
    const seedStart = performance.now();
    const now = Date.now();
    const storage = SqliteStorage.open(databasePath);
    try {
      const batch = 10_000;
      for (let start = 0; start < records; start += batch) {
        const entries: AuditEntry[] = [];
        for (let i = start; i < Math.min(records, start + batch); i += 1) entries.push(syntheticEntry(i, records, now));
        await appendEntries(storage.audit, entries);
      }
      storage.database.exec('ANALYZE');
    } finally {
      await storage.close();
    }
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const server = await startServerProcess({ SVC_HOME: home });
    try {
      const client = contractClient(server.baseUrl);
      const admin = await setupAdmin(client);
      const shapes: [string, Record<string, string>][] = [
        ['user + status + last 24 h', { user: 'user0042', status: 'login_failed', time_from: 'now-24h' }],
        ['user + status + last 7 d', { user: 'user0042', status: 'login_failed,denied', time_from: 'now-7d' }],
        ['status + last 30 d (page 1)', { status: 'denied', time_from: 'now-30d' }],
      ];
      const queries: SearchLatency[] = [];
      for (const [label, query] of shapes) {
        const url = `${server.baseUrl}/v1/audit/search?${new URLSearchParams(query)}`;
        const headers = { authorization: `Bearer ${admin.accessToken}` };
        let total = 0;
        for (let i = 0; i < 5; i += 1) await (await fetch(url, { headers })).json();
        const times: number[] = [];
        for (let i = 0; i < samples; i += 1) {
          const started = performance.now();
          const response = await fetch(url, { headers });
          const body = (await response.json()) as { total: number };
          times.push(performance.now() - started);
          if (response.status !== 200) throw new Error(`search answered ${response.status}`);
          total = body.total;
        }
        times.sort((x, y) => x - y);
        queries.push({ label, p50Ms: times[Math.floor(times.length / 2)] as number, p95Ms: times[Math.floor(times.length * 0.95)] as number, total });
      }
      return { records, seedSeconds, queries };
    } finally {
      await server.stop();
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
