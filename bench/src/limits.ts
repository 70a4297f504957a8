/**
 * What usage limits cost (issue 17): authenticated chat completions (an API key, the built-in echo
 * engine) on one server, (a) with a key and owner without limits and (b) with limits on the key and
 * its owner set high enough never to refuse (requests and tokens per minute, a per-model rate and a
 * monthly token budget: the leased limits), in alternating rounds, each keeping its best round. (c),
 * with a concurrency cap added (far above the 32 calls in flight), is shown without a goal: the
 * process admits from its lease of slots, a database write only when the lease grows, shrinks or is
 * renewed (docs/limits.md). Run on SQLite and on PostgreSQL (a local server started for the run, as
 * `postgres.ts` does).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractClient, createKey, createUser, setupAdmin, startPostgresCluster, startServerProcess, type ContractClient, type ServerProcess } from '@svc/server/testing';
import { pidOf } from './auth-overhead.js';
import { measure, type LoadResult, type RequestShape } from './load.js';

/** The figures of one backend. */
export interface LimitsReport {
  unlimited: LoadResult;
  limited: LoadResult;
  limitedWithConcurrency: LoadResult;
}

const HIGH = 1_000_000_000;
/** Limits no benchmark load reaches. */
const highLimits = {
  requests_per_minute: HIGH,
  tokens_per_minute: HIGH,
  token_budget: { tokens: HIGH * 1000, period: 'month' },
  models: [{ model: 'bench-chat', requests_per_minute: HIGH, tokens_per_minute: HIGH }],
};

const chat: RequestShape = { method: 'POST', body: JSON.stringify({ model: 'bench-chat', max_tokens: 16, messages: [{ role: 'user', content: 'Hello, limits' }] }) };

/** A user with `userLimits` and a key of theirs with `keyLimits` (null: none); answers the key. */
async function keyOf(client: ContractClient, adminToken: string, userLimits: object | null, keyLimits: object | null): Promise<string> {
  const user = await createUser(client, adminToken, ['models:read', 'keys:create']);
  if (userLimits !== null) {
    const set = await client.request('PUT', `/v1/admin/users/${user.id}`, { token: adminToken, body: { limits: userLimits } });
    if (set.status !== 200) throw new Error(`setting the user's limits failed: ${set.text}`);
  }
  return (await createKey(client, user.accessToken, { name: 'bench limits', limits: keyLimits } as never)).key;
}

/** Measures the three scenarios on one server whose database `environment` names (SQLite without one). */
async function measureOne(environment: Record<string, string>, options: { seconds: number; rounds: number }): Promise<LimitsReport> {
  const home = await mkdtemp(join(tmpdir(), 'svc-bench-limits-'));
  let server: ServerProcess | undefined;
  try {
    server = await startServerProcess({ SVC_HOME: home, ...environment });
    const client = contractClient(server.baseUrl);
    const admin = await setupAdmin(client);
    const launched = await client.request('POST', '/v1/models', { token: admin.accessToken, body: { model_uid: 'bench-chat', model_name: 'echo' } });
    if (launched.status !== 200) throw new Error(`launching the echo model failed: ${launched.text}`);
    const keys = {
      unlimited: await keyOf(client, admin.accessToken, null, null),
      limited: await keyOf(client, admin.accessToken, highLimits, highLimits),
      limitedWithConcurrency: await keyOf(client, admin.accessToken, { ...highLimits, max_concurrent_requests: 100_000 }, { ...highLimits, max_concurrent_requests: 100_000 }),
    };
    const url = `${server.baseUrl}/v1/chat/completions`;
    const pid = pidOf(server);
    const names = Object.keys(keys) as (keyof typeof keys)[];
    const run = async (name: keyof typeof keys, seconds: number) => {
      const result = await measure(url, { authorization: `Bearer ${keys[name]}` }, pid, seconds, 32, chat);
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx answers and ${result.errors} errors; the benchmark is invalid`);
      return result;
    };
    for (const name of names) await run(name, Math.min(2, options.seconds));
    const best: Partial<LimitsReport> = {};
    for (let round = 0; round < options.rounds; round += 1) {
      for (const name of round % 2 === 0 ? names : [...names].reverse()) {
        const result = await run(name, options.seconds);
        const previous = best[name];
        if (previous === undefined || result.requestsPerSecond > previous.requestsPerSecond) best[name] = result;
      }
    }
    return best as LimitsReport;
  } finally {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  }
}

/** Runs the benchmark on SQLite, then on a PostgreSQL server started for the run. */
export async function benchmarkLimits(options: { seconds: number; rounds: number }): Promise<{ sqlite: LimitsReport; postgres: LimitsReport }> {
  const sqlite = await measureOne({}, options);
  const cluster = await startPostgresCluster();
  try {
    const postgres = await measureOne(
      { SVC_DATABASE_URL: await cluster.createDatabase(), SVC_AUTH_JWT_SECRET_KEY: randomBytes(32).toString('hex'), SVC_AUTH_ENCRYPTION_KEY: randomBytes(32).toString('hex') },
      options,
    );
    return { sqlite, postgres };
  } finally {
    await cluster.stop();
  }
}
