/**
 * The cost of authentication on a cheap route: GET /v1/auth/me with (a) a JWT, (b) an API key, and
 * (c) the same server with SVC_AUTH_ADVANCED=false, measured in one run. Rounds alternate the
 * scenarios so drift on a shared machine hits all three alike; each scenario keeps its best round.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractClient, createKey, setupAdmin, startServerProcess, type ServerProcess } from '@svc/server/testing';
import { bestOfAlternatingRounds, type LoadResult, type LoadTarget } from './load.js';

/** What the benchmark prints and returns. */
export interface AuthOverheadReport {
  jwt: LoadResult;
  apiKey: LoadResult;
  authOff: LoadResult;
}

/** The variables that give a benchmark server its database: none for SQLite under its home. */
export type DatabaseEnvironment = () => Promise<Record<string, string>>;

/**
 * Runs the benchmark: `rounds` alternating rounds of `seconds` per scenario. `database` gives each
 * of the two servers its own database (PostgreSQL: `SVC_DATABASE_URL` and the secrets); default SQLite.
 */
export async function benchmarkAuthOverhead(options: { seconds: number; rounds: number; database?: DatabaseEnvironment }): Promise<AuthOverheadReport> {
  const database = options.database ?? (async () => ({}));
  const homes = [await mkdtemp(join(tmpdir(), 'svc-bench-')), await mkdtemp(join(tmpdir(), 'svc-bench-'))];
  const authOn = await startServerProcess({ SVC_HOME: homes[0] as string, ...(await database()) });
  const authOff = await startServerProcess({ SVC_HOME: homes[1] as string, SVC_AUTH_ADVANCED: 'false', ...(await database()) });
  try {
    const client = contractClient(authOn.baseUrl);
    const admin = await setupAdmin(client);
    const key = await createKey(client, admin.accessToken, { name: 'bench' });
    const me = (server: ServerProcess, headers: Record<string, string>): LoadTarget => ({ url: `${server.baseUrl}/v1/auth/me`, headers, pid: pidOf(server) });
    return await bestOfAlternatingRounds(
      {
        authOff: me(authOff, {}),
        jwt: me(authOn, { authorization: `Bearer ${admin.accessToken}` }),
        apiKey: me(authOn, { authorization: `Bearer ${key.key}` }),
      },
      options,
    );
  } finally {
    await Promise.all([authOn.stop(), authOff.stop()]);
    await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
  }
}

/** The process id of a benchmark server (for its CPU time). */
export function pidOf(server: ServerProcess): number {
  const pid = server.child.pid;
  if (pid === undefined) throw new Error('server process has no pid');
  return pid;
}
