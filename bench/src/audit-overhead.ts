/**
 * The cost of the audit trail: GET /v1/auth/me with an API key against two processes built from the
 * same code, one with the audit trail (every call recorded) and one without, measured in one run.
 * Rounds alternate so drift on a shared machine hits both alike; each keeps its best round.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contractClient, createKey, seedSecuritySettings, setupAdmin } from '@svc/server/testing';
import { bestOfAlternatingRounds, type LoadResult, type LoadTarget } from './load.js';

const entry = fileURLToPath(new URL('./bench-server.js', import.meta.url));

interface BenchServer {
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

async function startBenchServer(home: string, withoutAudit: boolean): Promise<BenchServer> {
  await seedSecuritySettings({ kind: 'sqlite', path: join(home, 'auth', 'auth.db') });
  const child = spawn(process.execPath, [entry, ...(withoutAudit ? ['--without-audit'] : [])], {
    env: { PATH: process.env['PATH'] ?? '', SVC_HOME: home },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /svc listening on (http:\/\/\S+)/.exec(output);
      if (match !== null) {
        resolve({
          baseUrl: match[1] as string,
          pid: child.pid as number,
          stop: async () => {
            child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}

/** What the benchmark returns. */
export interface AuditOverheadReport {
  auditOn: LoadResult;
  auditOff: LoadResult;
  /** Audit records written by the audited server during the run. */
  recorded: number;
}

/** Runs `rounds` alternating rounds of `seconds` per scenario. */
export async function benchmarkAuditOverhead(options: { seconds: number; rounds: number }): Promise<AuditOverheadReport> {
  const homes = [await mkdtemp(join(tmpdir(), 'svc-bench-audit-')), await mkdtemp(join(tmpdir(), 'svc-bench-audit-'))];
  const servers = [await startBenchServer(homes[0] as string, false), await startBenchServer(homes[1] as string, true)];
  try {
    const keys: string[] = [];
    for (const server of servers) {
      const client = contractClient(server.baseUrl);
      const admin = await setupAdmin(client);
      keys.push((await createKey(client, admin.accessToken, { name: 'bench' })).key);
    }
    const target = (index: number): LoadTarget => {
      const server = servers[index] as BenchServer;
      return { url: `${server.baseUrl}/v1/auth/me`, headers: { authorization: `Bearer ${keys[index]}` }, pid: server.pid };
    };
    const best = await bestOfAlternatingRounds({ auditOn: target(0), auditOff: target(1) }, options);
    // The admin's key (it holds `admin`) reads the audited server's count.
    const count = await contractClient((servers[0] as BenchServer).baseUrl).request('GET', '/v1/audit/search?time_from=now-1d&action=getMe&size=1', { token: keys[0] as string });
    return { ...best, recorded: count.body.total as number };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
  }
}
