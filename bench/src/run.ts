/**
 * `npm run bench`: runs every benchmark and prints its figures and ratios, then one table of every
 * ratio with its goal, also written to `bench/results.json`. Ratios are measured in one run on one
 * machine; absolute numbers depend on the machine, the ratios are the goals.
 *
 * `npm run bench -- upstream sdk` (or `SVC_BENCH_ONLY=upstream,sdk`) runs only the benchmarks named;
 * see {@link benchmarks} for the names.
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchmarkAuditOverhead } from './audit-overhead.js';
import { benchmarkAuditSearch } from './audit-search.js';
import { benchmarkAuditStorage, formatAuditStorage } from './audit-storage.js';
import { benchmarkAuthOverhead } from './auth-overhead.js';
import { measureBundleSize } from './bundle-size.js';
import { benchmarkKeyLookup } from './key-lookup-scaling.js';
import { benchmarkLimits } from './limits.js';
import { benchmarkPostgres } from './postgres.js';
import { formatResultsTable, recordedResults, recordResult, writeResults } from './results.js';
import { benchmarkSdkOverhead } from './sdk-overhead.js';
import { benchmarkUpstreamOverhead } from './upstream-overhead.js';

const seconds = Number(process.env['SVC_BENCH_SECONDS'] ?? 8);
const rounds = Number(process.env['SVC_BENCH_ROUNDS'] ?? 2);

const format = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ratio = (x: number, y: number) => format(x / y, 3);
const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');

async function authOverhead(): Promise<void> {
  console.log(`GET /v1/auth/me, ${rounds} alternating rounds of ${seconds} s per scenario, 32 connections (best round kept)\n`);
  const report = await benchmarkAuthOverhead({ seconds, rounds });
  const rows = [
    ['(a) JWT', report.jwt],
    ['(b) API key', report.apiKey],
    ['(c) auth off', report.authOff],
  ] as const;
  console.log('scenario        req/s    server CPU µs/req');
  for (const [name, result] of rows) {
    console.log(`${name.padEnd(14)} ${format(result.requestsPerSecond).padStart(7)}    ${format(result.serverCpuMicrosPerRequest, 1).padStart(8)}`);
  }
  console.log('');
  console.log(`throughput a/c = ${ratio(report.jwt.requestsPerSecond, report.authOff.requestsPerSecond)}   (goal >= 0.9)`);
  console.log(`throughput b/c = ${ratio(report.apiKey.requestsPerSecond, report.authOff.requestsPerSecond)}   (goal >= 0.9)`);
  console.log(`server CPU per request c/a = ${ratio(report.authOff.serverCpuMicrosPerRequest, report.jwt.serverCpuMicrosPerRequest)}, c/b = ${ratio(report.authOff.serverCpuMicrosPerRequest, report.apiKey.serverCpuMicrosPerRequest)} (capacity ratios; 1.0 = free)`);
  recordResult('JWT vs authentication off, throughput (audit on)', report.jwt.requestsPerSecond / report.authOff.requestsPerSecond, ['>=', 0.9]);
  recordResult('API key vs authentication off, throughput (audit on)', report.apiKey.requestsPerSecond / report.authOff.requestsPerSecond, ['>=', 0.9]);
}

async function auditOverhead(): Promise<void> {
  console.log(`\nAudit trail cost: GET /v1/auth/me with an API key, audit on vs off (same code), ${rounds} alternating rounds of ${seconds} s`);
  const audit = await benchmarkAuditOverhead({ seconds, rounds });
  console.log(`audit on   ${format(audit.auditOn.requestsPerSecond).padStart(7)} req/s    ${format(audit.auditOn.serverCpuMicrosPerRequest, 1).padStart(8)} server CPU µs/req   (${format(audit.recorded)} calls recorded)`);
  console.log(`audit off  ${format(audit.auditOff.requestsPerSecond).padStart(7)} req/s    ${format(audit.auditOff.serverCpuMicrosPerRequest, 1).padStart(8)} server CPU µs/req`);
  console.log(`throughput on/off = ${ratio(audit.auditOn.requestsPerSecond, audit.auditOff.requestsPerSecond)}   (goal >= 0.95); server CPU per request off/on = ${ratio(audit.auditOff.serverCpuMicrosPerRequest, audit.auditOn.serverCpuMicrosPerRequest)}`);
  recordResult('Audit on vs off, throughput', audit.auditOn.requestsPerSecond / audit.auditOff.requestsPerSecond, ['>=', 0.95]);
}

async function auditSearch(): Promise<void> {
  const auditRecords = Number(process.env['SVC_BENCH_AUDIT_RECORDS'] ?? 1_000_000);
  console.log(`\nAudit search over ${format(auditRecords)} records (30 days, 1,000 users), GET /v1/audit/search through HTTP, 60 samples per query`);
  const search = await benchmarkAuditSearch(auditRecords);
  console.log(`seeded in ${format(search.seedSeconds, 1)} s (hash chain included)`);
  for (const query of search.queries) {
    console.log(`${query.label.padEnd(30)} p50 ${format(query.p50Ms, 1).padStart(6)} ms   p95 ${format(query.p95Ms, 1).padStart(6)} ms   (${format(query.total)} matching)`);
  }
  const p50 = search.queries[0]?.p50Ms ?? Number.NaN;
  console.log(`p50 of "user + status + time range" = ${format(p50, 1)} ms   (goal < 100 ms)`);
  recordResult(`Audit search p50, user + status + 24 h over ${format(auditRecords)} records (ms)`, p50, ['<', 100]);
}

async function auditStorage(): Promise<void> {
  const records = Number(process.env['SVC_BENCH_AUDIT_STORAGE_RECORDS'] ?? 200_000);
  console.log(`\nAudit storage: ${format(records)} realistic records appended through each adapter, bytes per record with indexes`);
  const report = await benchmarkAuditStorage(records);
  for (const line of formatAuditStorage(report)) console.log(line);
  for (const size of report.sizes) {
    recordResult(`Audit storage, ${size.backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${format(size.records)} records (bytes per record)`, size.bytesPerRecord, ['<', 200]);
  }
}

async function keyLookup(): Promise<void> {
  const largeKeyCount = Number(process.env['SVC_BENCH_KEYS'] ?? 1_000_000);
  console.log(`\nAPI-key verification (checksum, SHA-256, indexed lookup; uncached) at 100 vs ${format(largeKeyCount)} stored keys`);
  const keys = await benchmarkKeyLookup(largeKeyCount);
  console.log(`${format(keys.small.keys).padStart(9)} keys: ${format(keys.small.nanosPerVerification / 1000, 2)} µs per verification`);
  console.log(`${format(keys.large.keys).padStart(9)} keys: ${format(keys.large.nanosPerVerification / 1000, 2)} µs per verification`);
  console.log(`cost ratio large/small = ${ratio(keys.large.nanosPerVerification, keys.small.nanosPerVerification)}   (goal <= 1.2)`);
  recordResult(`Key verification, ${format(keys.large.keys)} keys vs ${format(keys.small.keys)}, cost`, keys.large.nanosPerVerification / keys.small.nanosPerVerification, ['<=', 1.2]);
}

async function sdkOverhead(): Promise<void> {
  const sdkCalls = Number(process.env['SVC_BENCH_SDK_CALLS'] ?? 3000);
  const sdkRounds = Number(process.env['SVC_BENCH_SDK_ROUNDS'] ?? 3);
  console.log(`\nSDK vs raw fetch: sequential GET /v1/auth/me with an API key, ${sdkRounds} alternating rounds of ${format(sdkCalls)} calls each (best round kept)`);
  const sdk = await benchmarkSdkOverhead({ calls: sdkCalls, rounds: sdkRounds });
  console.log(`(a) fetch + response.json()   ${format(sdk.rawFetchMicrosPerCall, 1).padStart(7)} µs per call`);
  console.log(`(b) client.auth.me()          ${format(sdk.sdkMicrosPerCall, 1).padStart(7)} µs per call`);
  console.log(`time ratio b/a = ${ratio(sdk.sdkMicrosPerCall, sdk.rawFetchMicrosPerCall)}   (goal <= 1.1)`);
  recordResult('SDK vs fetch, time per call', sdk.sdkMicrosPerCall / sdk.rawFetchMicrosPerCall, ['<=', 1.1]);
}

async function bundleSize(): Promise<void> {
  const kB = (bytes: number) => `${format(bytes / 1000, 2)} kB`;
  const percent = (part: number, whole: number) => `${format((100 * part) / whole, 0)}%`;
  const size = await measureBundleSize();
  console.log(`\nBrowser bundle of @svc/sdk (esbuild: bundle, minify, ESM, platform browser; every export kept)`);
  console.log(`minified ${kB(size.minified)}, min+gzip ${kB(size.minifiedGzip)}   (goal <= 12 kB min+gzip, excluding generated types)`);
  console.log(`generated types (generated/openapi.ts): ${format(size.generatedTypesMinified)} B in the bundle (type-only, erased); generated runtime data: ${format(size.generatedRuntimeMinified)} B min`);
  console.log(`openapi-fetch: ${kB(size.openapiFetchMinified)} min (${percent(size.openapiFetchMinified, size.minified)} of the minified bundle); without it the bundle is ${kB(size.withoutOpenapiFetchGzip)} min+gzip, so it accounts for ${kB(size.minifiedGzip - size.withoutOpenapiFetchGzip)} of the min+gzip size`);
  recordResult('SDK browser bundle, min+gzip (kB)', size.minifiedGzip / 1000, ['<=', 12]);
}

async function upstreamOverhead(): Promise<void> {
  const upstreamCalls = Number(process.env['SVC_BENCH_UPSTREAM_CALLS'] ?? 2000);
  const upstreamDelays = (process.env['SVC_BENCH_UPSTREAM_DELAYS_MS'] ?? '20,0').split(',').map(Number);
  for (const delayMs of upstreamDelays) {
    console.log(
      `\nChat completions through svc's upstream engine (API key) vs straight to the same local upstream (its answers take ${delayMs} ms): ` +
        `${rounds} alternating rounds of ${seconds} s at 32 connections, then ${format(upstreamCalls)} sequential calls to an instant upstream (best round kept); load average ${load()}`,
    );
    const upstream = await benchmarkUpstreamOverhead({ seconds, rounds, calls: upstreamCalls, delayMs });
    console.log('scenario             req/s    p50 µs at 32 conn.    sequential p50 µs    p99 µs');
    for (const [name, result, loadedP50, latency] of [
      ['(a) direct', upstream.direct, upstream.directLoadedP50Micros, upstream.directLatency],
      ['(b) through svc', upstream.viaSvc, upstream.viaSvcLoadedP50Micros, upstream.viaSvcLatency],
    ] as const) {
      console.log(`${name.padEnd(18)} ${format(result.requestsPerSecond).padStart(7)}   ${format(loadedP50).padStart(10)}            ${format(latency.p50).padStart(9)}       ${format(latency.p99).padStart(7)}`);
    }
    const throughput = upstream.viaSvc.requestsPerSecond / upstream.direct.requestsPerSecond;
    const addedLoaded = (upstream.viaSvcLoadedP50Micros - upstream.directLoadedP50Micros) / 1000;
    const addedSequential = (upstream.viaSvcLatency.p50 - upstream.directLatency.p50) / 1000;
    const goal = delayMs > 0 ? '(goal >= 0.95)' : "(no goal: the upstream does no work, so this is svc's own per-request cost against a bare HTTP answer)";
    console.log(`throughput b/a = ${format(throughput, 3)}   ${goal}`);
    console.log(`added latency p50 at 32 connections = ${format(addedLoaded, 3)} ms${delayMs > 0 ? ' (goal < 1 ms)' : ''}`);
    console.log(`added latency, sequential calls: p50 = ${format(addedSequential, 3)} ms (goal < 1 ms), p99 = ${format((upstream.viaSvcLatency.p99 - upstream.directLatency.p99) / 1000, 3)} ms`);
    if (delayMs > 0) {
      recordResult(`Gateway vs direct, throughput, ${delayMs} ms upstream, 32 connections`, throughput, ['>=', 0.95]);
      recordResult(`Gateway added latency p50, ${delayMs} ms upstream, 32 connections (ms)`, addedLoaded, ['<', 1]);
    } else {
      recordResult(`Gateway vs direct, throughput, ${delayMs} ms upstream, 32 connections`, throughput, null);
    }
    // The sequential calls go to the instant upstream in every run: one line, from the first run.
    if (delayMs === upstreamDelays[0]) recordResult('Gateway added latency p50, sequential calls (ms)', addedSequential, ['<', 1]);
  }
}

async function postgres(): Promise<void> {
  const largeKeyCount = Number(process.env['SVC_BENCH_KEYS'] ?? 1_000_000);
  console.log(`\nPostgreSQL (a local server started for the run): GET /v1/auth/me with every svc on PostgreSQL, ${rounds} alternating rounds of ${seconds} s; key verification at 100 vs ${format(largeKeyCount)} keys; three processes on one database vs one`);
  const report = await benchmarkPostgres({ seconds, rounds, keys: largeKeyCount });
  const { auth, keys, scaleOut } = report;
  for (const [name, result] of [['(a) JWT', auth.jwt], ['(b) API key', auth.apiKey], ['(c) auth off', auth.authOff]] as const) {
    console.log(`${name.padEnd(14)} ${format(result.requestsPerSecond).padStart(7)} req/s   ${format(result.serverCpuMicrosPerRequest, 1).padStart(8)} server CPU µs/req`);
  }
  console.log(`throughput a/c = ${ratio(auth.jwt.requestsPerSecond, auth.authOff.requestsPerSecond)}, b/c = ${ratio(auth.apiKey.requestsPerSecond, auth.authOff.requestsPerSecond)}   (goal >= 0.9)`);
  console.log(`key verification: ${format(keys.small.nanosPerVerification / 1000, 1)} µs at ${format(keys.small.keys)} keys, ${format(keys.large.nanosPerVerification / 1000, 1)} µs at ${format(keys.large.keys)}: ratio ${ratio(keys.large.nanosPerVerification, keys.small.nanosPerVerification)}   (goal <= 1.2); ${format(keys.large.keys)} keys seeded in ${format(keys.seedSeconds, 1)} s`);
  console.log(`one process ${format(scaleOut.oneProcess.requestsPerSecond)} req/s; three processes ${format(scaleOut.threeProcesses.requestsPerSecond)} req/s in all (${scaleOut.threeProcesses.perProcess.map((result) => format(result.requestsPerSecond)).join(' + ')})`);
  recordResult('PostgreSQL: JWT vs authentication off, throughput (audit on)', auth.jwt.requestsPerSecond / auth.authOff.requestsPerSecond, ['>=', 0.9]);
  recordResult('PostgreSQL: API key vs authentication off, throughput (audit on)', auth.apiKey.requestsPerSecond / auth.authOff.requestsPerSecond, ['>=', 0.9]);
  recordResult(`PostgreSQL: key verification, ${format(keys.large.keys)} keys vs ${format(keys.small.keys)}, cost`, keys.large.nanosPerVerification / keys.small.nanosPerVerification, ['<=', 1.2]);
  recordResult('PostgreSQL: three processes vs one, throughput (2 cores)', scaleOut.threeProcesses.requestsPerSecond / scaleOut.oneProcess.requestsPerSecond, null);
}

async function limitsOverhead(): Promise<void> {
  console.log(`\nUsage limits: chat completions with an API key (built-in echo engine), limits set high enough never to refuse vs none, ${rounds} alternating rounds of ${seconds} s at 32 connections, on SQLite and on PostgreSQL; load average ${load()}`);
  const report = await benchmarkLimits({ seconds, rounds });
  for (const [backend, figures] of [['SQLite', report.sqlite], ['PostgreSQL', report.postgres]] as const) {
    for (const [name, result] of [['(a) no limits', figures.unlimited], ['(b) limits', figures.limited], ['(c) limits + concurrency cap', figures.limitedWithConcurrency]] as const) {
      console.log(`${backend.padEnd(11)} ${name.padEnd(29)} ${format(result.requestsPerSecond).padStart(7)} req/s   ${format(result.serverCpuMicrosPerRequest, 1).padStart(8)} server CPU µs/req`);
    }
    console.log(`${backend}: throughput b/a = ${ratio(figures.limited.requestsPerSecond, figures.unlimited.requestsPerSecond)}   (goal >= 0.95); c/a = ${ratio(figures.limitedWithConcurrency.requestsPerSecond, figures.unlimited.requestsPerSecond)} (no goal)`);
    const prefix = backend === 'SQLite' ? '' : 'PostgreSQL: ';
    recordResult(`${prefix}Chat with usage limits vs none, throughput`, figures.limited.requestsPerSecond / figures.unlimited.requestsPerSecond, ['>=', 0.95]);
    recordResult(`${prefix}Chat with limits and a concurrency cap vs none, throughput`, figures.limitedWithConcurrency.requestsPerSecond / figures.unlimited.requestsPerSecond, null);
  }
}

/** Every benchmark by the name that selects it, in the order a full run takes them. */
const benchmarks = {
  auth: authOverhead,
  audit: auditOverhead,
  'audit-search': auditSearch,
  'audit-storage': auditStorage,
  'key-lookup': keyLookup,
  sdk: sdkOverhead,
  bundle: bundleSize,
  upstream: upstreamOverhead,
  postgres,
  limits: limitsOverhead,
} as const satisfies Record<string, () => Promise<void>>;

type BenchmarkName = keyof typeof benchmarks;

function selected(): BenchmarkName[] {
  const names = [...process.argv.slice(2), ...(process.env['SVC_BENCH_ONLY'] ?? '').split(',')].map((name) => name.trim()).filter((name) => name !== '');
  const unknown = names.filter((name) => !(name in benchmarks));
  if (unknown.length > 0) {
    console.error(`unknown benchmark ${unknown.join(', ')}; the names are ${Object.keys(benchmarks).join(', ')}`);
    process.exit(2);
  }
  return names.length === 0 ? (Object.keys(benchmarks) as BenchmarkName[]) : (names as BenchmarkName[]);
}

const names = selected();
console.log(`load average at start: ${load()}${names.length < Object.keys(benchmarks).length ? `; running only ${names.join(', ')}` : ''}\n`);
for (const name of names) await benchmarks[name]();

const resultsPath = fileURLToPath(new URL('../results.json', import.meta.url));
console.log(`\nResults (load average at the end: ${load()}; written to ${resultsPath})\n`);
console.log(formatResultsTable(recordedResults()));
await writeResults(resultsPath, recordedResults());
