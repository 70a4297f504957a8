/**
 * The cost of authentication on a cheap route: GET /v1/auth/me with (a) a JWT, (b) an API key, and
 * (c) the same server with SVC_AUTH_ADVANCED=false, measured in one run. Rounds alternate the
 * scenarios so drift on a shared machine hits all three alike; each scenario keeps its best round.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractClient, createKey, setupAdmin, startServerProcess, type ServerProcess } from '@svc/server/testing';
import { measure, type LoadResult } from './load.js';

/** What the benchmark prints and returns. */
export interface AuthOverheadReport {
  jwt: LoadResult;
  apiKey: LoadResult;
  authOff: LoadResult;
}

interface Scenario {
  name: 'jwt' | 'apiKey' | 'authOff';
  server: ServerProcess;
  headers: Record<string, string>;
}

/** Runs the benchmark: `rounds` alternating rounds of `seconds` per scenario. */
export async function benchmarkAuthOverhead(options: { seconds: number; rounds: number }): Promise<AuthOverheadReport> {
  const homes = [await mkdtemp(join(tmpdir(), 'svc-bench-')), await mkdtemp(join(tmpdir(), 'svc-bench-'))];
  const authOn = await startServerProcess({ SVC_HOME: homes[0] as string });
  const authOff = await startServerProcess({ SVC_HOME: homes[1] as string, SVC_AUTH_ADVANCED: 'false' });
  try {
    const client = contractClient(authOn.baseUrl);
    const admin = await setupAdmin(client);
    const key = await createKey(client, admin.accessToken, { name: 'bench' });
    const scenarios: Scenario[] = [
      { name: 'authOff', server: authOff, headers: {} },
      { name: 'jwt', server: authOn, headers: { authorization: `Bearer ${admin.accessToken}` } },
      { name: 'apiKey', server: authOn, headers: { authorization: `Bearer ${key.key}` } },
    ];
    const best = new Map<Scenario['name'], LoadResult>();
    for (const scenario of scenarios) await measure(`${scenario.server.baseUrl}/v1/auth/me`, scenario.headers, pidOf(scenario.server), 2);
    for (let round = 0; round < options.rounds; round += 1) {
      for (const scenario of round % 2 === 0 ? scenarios : [...scenarios].reverse()) {
        const result = await measure(`${scenario.server.baseUrl}/v1/auth/me`, scenario.headers, pidOf(scenario.server), options.seconds);
        if (result.non2xx > 0 || result.errors > 0) {
          throw new Error(`${scenario.name}: ${result.non2xx} non-2xx answers and ${result.errors} errors; the benchmark is invalid`);
        }
        const previous = best.get(scenario.name);
        if (previous === undefined || result.requestsPerSecond > previous.requestsPerSecond) best.set(scenario.name, result);
      }
    }
    return { jwt: best.get('jwt') as LoadResult, apiKey: best.get('apiKey') as LoadResult, authOff: best.get('authOff') as LoadResult };
  } finally {
    await Promise.all([authOn.stop(), authOff.stop()]);
    await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
  }
}

function pidOf(server: ServerProcess): number {
  const pid = server.child.pid;
  if (pid === undefined) throw new Error('server process has no pid');
  return pid;
}
