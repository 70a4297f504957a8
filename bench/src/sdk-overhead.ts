/**
 * What the SDK adds to a call: sequential GET /v1/auth/me against one real `svc-local` process, (a)
 * with a bare `fetch` (Authorization header, `await response.json()`) and (b) with
 * `new Client({ baseUrl, apiKey }).auth.me()`, both over the runtime's own `fetch` and the same
 * API key. Rounds alternate the two so drift on a shared machine hits both alike; each keeps its best
 * round. The server's time is in both figures, so the ratio b/a is what a caller sees.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@svc/sdk';
import { contractClient, createKey, setupAdmin, startServerProcess } from '@svc/server/testing';

/** What the benchmark returns. */
export interface SdkOverheadReport {
  /** Microseconds per call with a bare `fetch` (best round). */
  rawFetchMicrosPerCall: number;
  /** Microseconds per call with `client.auth.me()` (best round). */
  sdkMicrosPerCall: number;
  calls: number;
  rounds: number;
}

type Call = () => Promise<unknown>;

/** Runs the benchmark: `rounds` alternating rounds of `calls` sequential calls per variant. */
export async function benchmarkSdkOverhead(options: { calls: number; rounds: number; warmupCalls?: number }): Promise<SdkOverheadReport> {
  const home = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  const server = await startServerProcess({ SVC_HOME: home });
  try {
    const admin = await setupAdmin(contractClient(server.baseUrl));
    const key = await createKey(contractClient(server.baseUrl), admin.accessToken, { name: 'bench-sdk' });
    const url = `${server.baseUrl}/v1/auth/me`;
    const headers = { authorization: `Bearer ${key.key}` };
    const expectedId = admin.id;

    const raw: Call = async () => {
      const response = await fetch(url, { headers });
      if (!response.ok) throw new Error(`raw fetch: HTTP ${response.status}`);
      return response.json();
    };
    const client = new Client({ baseUrl: server.baseUrl, apiKey: key.key });
    const sdk: Call = () => client.auth.me();

    // Both must answer the same thing, or the comparison is meaningless.
    const [rawMe, sdkMe] = (await Promise.all([raw(), sdk()])) as { id?: string; auth_type?: string }[];
    for (const [name, me] of [['raw fetch', rawMe], ['SDK', sdkMe]] as const) {
      if (me?.id !== expectedId || me.auth_type !== 'api_key') throw new Error(`${name}: /v1/auth/me did not answer the admin by API key: ${JSON.stringify(me)}`);
    }

    const warmup = options.warmupCalls ?? Math.min(options.calls, 1000);
    await timeCalls(raw, warmup);
    await timeCalls(sdk, warmup);
    let bestRaw = Number.POSITIVE_INFINITY;
    let bestSdk = Number.POSITIVE_INFINITY;
    for (let round = 0; round < options.rounds; round += 1) {
      const order = round % 2 === 0 ? (['raw', 'sdk'] as const) : (['sdk', 'raw'] as const);
      for (const variant of order) {
        const nanos = await timeCalls(variant === 'raw' ? raw : sdk, options.calls);
        const micros = nanos / options.calls / 1000;
        if (variant === 'raw') bestRaw = Math.min(bestRaw, micros);
        else bestSdk = Math.min(bestSdk, micros);
      }
    }
    return { rawFetchMicrosPerCall: bestRaw, sdkMicrosPerCall: bestSdk, calls: options.calls, rounds: options.rounds };
  } finally {
    await server.stop();
    await rm(home, { recursive: true, force: true });
  }
}

/** Nanoseconds taken by `count` sequential calls. */
async function timeCalls(call: Call, count: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i += 1) await call();
  return Number(process.hrtime.bigint() - start);
}
