/**
 * Drives load at one URL with autocannon and measures, at the same time, the CPU the server process
 * spent (from /proc), so a result says both how many requests per second were served and how much
 * server CPU each one cost, and the latency of the answers under that load (to the microsecond:
 * autocannon's own histogram keeps whole milliseconds).
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

/** One measured run. */
export interface LoadResult {
  requestsPerSecond: number;
  /** Server CPU time per request in microseconds (user + system). */
  serverCpuMicrosPerRequest: number;
  total: number;
  non2xx: number;
  errors: number;
  /** Latency of the 2xx answers under this load, in microseconds. */
  latencyP50Micros: number;
  latencyP99Micros: number;
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const CLOCK_TICKS_PER_SECOND = 100;

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** The `q` quantile of sorted `values` (NaN when empty). */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

/** A request other than a plain GET. */
export interface RequestShape {
  method: 'POST' | 'PUT';
  /** A JSON body (sent with `content-type: application/json`). */
  body: string;
}

/** Sends GET `url` (or `request`) with `headers` over `connections` for `seconds`, measuring the server `pid`. */
export async function measure(url: string, headers: Record<string, string>, pid: number, seconds: number, connections = 32, request?: RequestShape): Promise<LoadResult> {
  const before = cpuTicks(pid);
  const shape = request === undefined ? {} : { method: request.method, body: request.body, headers: { ...headers, 'content-type': 'application/json' } };
  // Without a callback autocannon answers its tracker, an event emitter that is also the result's promise.
  const run = autocannon({ url, headers, connections, duration: seconds, pipelining: 1, ...shape }) as unknown as Promise<autocannon.Result> & NodeJS.EventEmitter;
  const latencies: number[] = [];
  run.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs * 1000);
  });
  const result = await run;
  const cpuSeconds = (cpuTicks(pid) - before) / CLOCK_TICKS_PER_SECOND;
  const total = result.requests.total;
  latencies.sort((x, y) => x - y);
  return {
    requestsPerSecond: total / seconds,
    serverCpuMicrosPerRequest: total === 0 ? Number.NaN : (cpuSeconds * 1e6) / total,
    total,
    non2xx: result.non2xx,
    errors: result.errors,
    latencyP50Micros: percentile(latencies, 0.5),
    latencyP99Micros: percentile(latencies, 0.99),
  };
}

/** One server under load in a comparison. */
export interface LoadTarget {
  url: string;
  headers: Record<string, string>;
  /** The server process whose CPU is measured. */
  pid: number;
}

/**
 * Measures every target in `rounds` alternating rounds of `seconds` (forward, then backward, so drift
 * on a shared machine hits all alike), after a 2-second warm-up each, and keeps each target's best
 * round. A round with a non-2xx answer or an error makes the benchmark invalid: it throws.
 */
export async function bestOfAlternatingRounds<Name extends string>(targets: Record<Name, LoadTarget>, options: { seconds: number; rounds: number }): Promise<Record<Name, LoadResult>> {
  const entries = Object.entries(targets) as [Name, LoadTarget][];
  for (const [, target] of entries) await measure(target.url, target.headers, target.pid, 2);
  const best = {} as Record<Name, LoadResult>;
  for (let round = 0; round < options.rounds; round += 1) {
    for (const [name, target] of round % 2 === 0 ? entries : [...entries].reverse()) {
      const result = await measure(target.url, target.headers, target.pid, options.seconds);
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx answers and ${result.errors} errors; the benchmark is invalid`);
      if (best[name] === undefined || result.requestsPerSecond > best[name].requestsPerSecond) best[name] = result;
    }
  }
  return best;
}
