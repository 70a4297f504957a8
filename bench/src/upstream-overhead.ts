/**
 * What svc's upstream engine adds to a chat completion: the same local OpenAI-compatible server
 * called (a) directly and (b) through svc (`svc-local`, API key, a model launched with
 * `upstream_base_url`). Throughput under 32 connections (autocannon) and the latency of sequential
 * calls (p50, p99), in alternating rounds, each scenario keeping its best round.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contractClient, createKey, setupAdmin, startServerProcess } from '@svc/server/testing';
import { measure, type LoadResult } from './load.js';

/** Latency percentiles of sequential calls, in microseconds. */
export interface Latency {
  p50: number;
  p99: number;
}

/** What the benchmark returns. */
export interface UpstreamOverheadReport {
  /** The upstream's answer delay in the throughput runs (0: svc's own cost dominates). */
  delayMs: number;
  /** The best round of each scenario by throughput. */
  direct: LoadResult;
  viaSvc: LoadResult;
  /** The lowest p50 latency of any round under the 32-connection load, in microseconds. */
  directLoadedP50Micros: number;
  viaSvcLoadedP50Micros: number;
  /** Sequential calls against an upstream that answers at once: all of the difference is svc. */
  directLatency: Latency;
  viaSvcLatency: Latency;
}

const bodyFor = (model: string) => JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }] });

function startUpstreamProcess(delayMs: number): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./fake-upstream-process.js', import.meta.url)), String(delayMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /upstream listening on (\S+)/.exec(out);
      if (match !== null) resolve({ child, baseUrl: match[1] as string });
    });
    child.once('exit', (code) => reject(new Error(`the fake upstream exited with ${code}`)));
  });
}

/** `calls` sequential POSTs over one keep-alive connection; percentiles of their latency. */
async function sequentialLatency(url: string, headers: Record<string, string>, calls: number): Promise<Latency> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(url);
  const payload = Buffer.from(bodyFor('bench-instant'));
  const one = () =>
    new Promise<number>((resolve, reject) => {
      const started = process.hrtime.bigint();
      const call = request(
        { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length } },
        (response) => {
          response.resume();
          response.once('end', () => (response.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - started) / 1000) : reject(new Error(`${url} answered ${response.statusCode}`))));
        },
      );
      call.once('error', reject);
      call.end(payload);
    });
  const samples: number[] = [];
  try {
    for (let i = 0; i < calls; i += 1) samples.push(await one());
  } finally {
    agent.destroy();
  }
  samples.sort((x, y) => x - y);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] as number;
  return { p50: at(0.5), p99: at(0.99) };
}

/**
 * Runs the benchmark. Throughput is measured against an upstream whose answers take `delayMs` (a
 * model's compute time; 0 measures svc's own cost, which then dominates), latency against one that
 * answers at once.
 */
export async function benchmarkUpstreamOverhead(options: { seconds: number; rounds: number; calls: number; delayMs: number }): Promise<UpstreamOverheadReport> {
  const home = await mkdtemp(join(tmpdir(), 'svc-bench-upstream-'));
  const slow = await startUpstreamProcess(options.delayMs);
  const instant = options.delayMs === 0 ? slow : await startUpstreamProcess(0);
  const svc = await startServerProcess({ SVC_HOME: home });
  try {
    const client = contractClient(svc.baseUrl);
    const admin = await setupAdmin(client);
    const key = await createKey(client, admin.accessToken, { name: 'bench upstream' });
    for (const [uid, upstream] of [['bench-upstream', slow], ['bench-instant', instant]] as const) {
      const launched = await client.request('POST', '/v1/models', { token: admin.accessToken, body: { model_uid: uid, model_name: uid, upstream_base_url: upstream.baseUrl } });
      if (launched.status !== 200 && launched.body?.error?.code !== 'model_uid_taken') throw new Error(`launching the upstream model failed: ${launched.text}`);
    }
    const auth = { authorization: `Bearer ${key.key}` };
    const scenarios = [
      { name: 'direct' as const, url: `${slow.baseUrl}/chat/completions`, latencyUrl: `${instant.baseUrl}/chat/completions`, headers: {}, pid: slow.child.pid as number },
      { name: 'viaSvc' as const, url: `${svc.baseUrl}/v1/chat/completions`, latencyUrl: `${svc.baseUrl}/v1/chat/completions`, headers: auth, pid: svc.child.pid as number },
    ];
    const best = new Map<string, LoadResult>();
    const loadedP50 = new Map<string, number>();
    const latency = new Map<string, Latency>();
    for (const scenario of scenarios) {
      await measure(scenario.url, scenario.headers, scenario.pid, 2, 32, { method: 'POST', body: bodyFor('bench-upstream') });
      await sequentialLatency(scenario.latencyUrl, scenario.headers, 500);
    }
    for (let round = 0; round < options.rounds; round += 1) {
      for (const scenario of round % 2 === 0 ? scenarios : [...scenarios].reverse()) {
        const result = await measure(scenario.url, scenario.headers, scenario.pid, options.seconds, 32, { method: 'POST', body: bodyFor('bench-upstream') });
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${scenario.name}: ${result.non2xx} non-2xx answers and ${result.errors} errors; the benchmark is invalid`);
        const previous = best.get(scenario.name);
        if (previous === undefined || result.requestsPerSecond > previous.requestsPerSecond) best.set(scenario.name, result);
        loadedP50.set(scenario.name, Math.min(loadedP50.get(scenario.name) ?? Number.POSITIVE_INFINITY, result.latencyP50Micros));
        const measured = await sequentialLatency(scenario.latencyUrl, scenario.headers, options.calls);
        const kept = latency.get(scenario.name);
        if (kept === undefined || measured.p50 < kept.p50) latency.set(scenario.name, measured);
      }
    }
    return {
      delayMs: options.delayMs,
      direct: best.get('direct') as LoadResult,
      viaSvc: best.get('viaSvc') as LoadResult,
      directLoadedP50Micros: loadedP50.get('direct') as number,
      viaSvcLoadedP50Micros: loadedP50.get('viaSvc') as number,
      directLatency: latency.get('direct') as Latency,
      viaSvcLatency: latency.get('viaSvc') as Latency,
    };
  } finally {
    await svc.stop();
    slow.child.kill('SIGTERM');
    instant.child.kill('SIGTERM');
    await rm(home, { recursive: true, force: true });
  }
}
