/**
 * `npm run bench`: runs every benchmark and prints its figures and ratios. Ratios are measured in one
 * run on one machine; absolute numbers depend on the machine, the ratios are the goals.
 */
import { benchmarkAuditOverhead } from './audit-overhead.js';
import { benchmarkAuditSearch } from './audit-search.js';
import { benchmarkAuthOverhead } from './auth-overhead.js';
import { measureBundleSize } from './bundle-size.js';
import { benchmarkKeyLookup } from './key-lookup-scaling.js';
import { benchmarkSdkOverhead } from './sdk-overhead.js';
import { benchmarkUpstreamOverhead } from './upstream-overhead.js';

const seconds = Number(process.env['SVC_BENCH_SECONDS'] ?? 8);
const rounds = Number(process.env['SVC_BENCH_ROUNDS'] ?? 2);

const format = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

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
const ratio = (x: number, y: number) => format(x / y, 3);
console.log('');
console.log(`throughput a/c = ${ratio(report.jwt.requestsPerSecond, report.authOff.requestsPerSecond)}   (goal >= 0.9)`);
console.log(`throughput b/c = ${ratio(report.apiKey.requestsPerSecond, report.authOff.requestsPerSecond)}   (goal >= 0.9)`);
console.log(`server CPU per request c/a = ${ratio(report.authOff.serverCpuMicrosPerRequest, report.jwt.serverCpuMicrosPerRequest)}, c/b = ${ratio(report.authOff.serverCpuMicrosPerRequest, report.apiKey.serverCpuMicrosPerRequest)} (capacity ratios; 1.0 = free)`);

console.log(`\nAudit trail cost: GET /v1/auth/me with an API key, audit on vs off (same code), ${rounds} alternating rounds of ${seconds} s`);
const audit = await benchmarkAuditOverhead({ seconds, rounds });
console.log(`audit on   ${format(audit.auditOn.requestsPerSecond).padStart(7)} req/s    ${format(audit.auditOn.serverCpuMicrosPerRequest, 1).padStart(8)} server CPU µs/req   (${format(audit.recorded)} calls recorded)`);
console.log(`audit off  ${format(audit.auditOff.requestsPerSecond).padStart(7)} req/s    ${format(audit.auditOff.serverCpuMicrosPerRequest, 1).padStart(8)} server CPU µs/req`);
console.log(`throughput on/off = ${ratio(audit.auditOn.requestsPerSecond, audit.auditOff.requestsPerSecond)}   (goal >= 0.95); server CPU per request off/on = ${ratio(audit.auditOff.serverCpuMicrosPerRequest, audit.auditOn.serverCpuMicrosPerRequest)}`);

const auditRecords = Number(process.env['SVC_BENCH_AUDIT_RECORDS'] ?? 1_000_000);
console.log(`\nAudit search over ${format(auditRecords)} records (30 days, 1,000 users), GET /v1/audit/search through HTTP, 60 samples per query`);
const search = await benchmarkAuditSearch(auditRecords);
console.log(`seeded in ${format(search.seedSeconds, 1)} s (hash chain included)`);
for (const query of search.queries) {
  console.log(`${query.label.padEnd(30)} p50 ${format(query.p50Ms, 1).padStart(6)} ms   p95 ${format(query.p95Ms, 1).padStart(6)} ms   (${format(query.total)} matching)`);
}
console.log(`p50 of "user + status + time range" = ${format(search.queries[0]?.p50Ms ?? Number.NaN, 1)} ms   (goal < 100 ms)`);

const largeKeyCount = Number(process.env['SVC_BENCH_KEYS'] ?? 1_000_000);
console.log(`\nAPI-key verification (checksum, SHA-256, indexed lookup; uncached) at 100 vs ${format(largeKeyCount)} stored keys`);
const keys = await benchmarkKeyLookup(largeKeyCount);
console.log(`${format(keys.small.keys).padStart(9)} keys: ${format(keys.small.nanosPerVerification / 1000, 2)} µs per verification`);
console.log(`${format(keys.large.keys).padStart(9)} keys: ${format(keys.large.nanosPerVerification / 1000, 2)} µs per verification`);
console.log(`cost ratio large/small = ${ratio(keys.large.nanosPerVerification, keys.small.nanosPerVerification)}   (goal <= 1.2)`);

const sdkCalls = Number(process.env['SVC_BENCH_SDK_CALLS'] ?? 3000);
const sdkRounds = Number(process.env['SVC_BENCH_SDK_ROUNDS'] ?? 3);
console.log(`\nSDK vs raw fetch: sequential GET /v1/auth/me with an API key, ${sdkRounds} alternating rounds of ${format(sdkCalls)} calls each (best round kept)`);
const sdk = await benchmarkSdkOverhead({ calls: sdkCalls, rounds: sdkRounds });
console.log(`(a) fetch + response.json()   ${format(sdk.rawFetchMicrosPerCall, 1).padStart(7)} µs per call`);
console.log(`(b) client.auth.me()          ${format(sdk.sdkMicrosPerCall, 1).padStart(7)} µs per call`);
console.log(`time ratio b/a = ${ratio(sdk.sdkMicrosPerCall, sdk.rawFetchMicrosPerCall)}   (goal <= 1.1)`);

const kB = (bytes: number) => `${format(bytes / 1000, 2)} kB`;
const percent = (part: number, whole: number) => `${format((100 * part) / whole, 0)}%`;
const size = await measureBundleSize();
console.log(`\nBrowser bundle of @svc/sdk (esbuild: bundle, minify, ESM, platform browser; every export kept)`);
console.log(`minified ${kB(size.minified)}, min+gzip ${kB(size.minifiedGzip)}   (goal <= 12 kB min+gzip, excluding generated types)`);
console.log(`generated types (generated/openapi.ts): ${format(size.generatedTypesMinified)} B in the bundle (type-only, erased); generated runtime data: ${format(size.generatedRuntimeMinified)} B min`);
console.log(`openapi-fetch: ${kB(size.openapiFetchMinified)} min (${percent(size.openapiFetchMinified, size.minified)} of the minified bundle); without it the bundle is ${kB(size.withoutOpenapiFetchGzip)} min+gzip, so it accounts for ${kB(size.minifiedGzip - size.withoutOpenapiFetchGzip)} of the min+gzip size`);

const upstreamCalls = Number(process.env['SVC_BENCH_UPSTREAM_CALLS'] ?? 2000);
const upstreamDelays = (process.env['SVC_BENCH_UPSTREAM_DELAYS_MS'] ?? '20,0').split(',').map(Number);
for (const delayMs of upstreamDelays) {
  console.log(
    `\nChat completions through svc's upstream engine (API key) vs straight to the same local upstream (its answers take ${delayMs} ms): ` +
      `${rounds} alternating rounds of ${seconds} s at 32 connections, then ${format(upstreamCalls)} sequential calls to an instant upstream (best round kept)`,
  );
  const upstream = await benchmarkUpstreamOverhead({ seconds, rounds, calls: upstreamCalls, delayMs });
  console.log('scenario             req/s    p50 µs    p99 µs');
  for (const [name, load, latency] of [
    ['(a) direct', upstream.direct, upstream.directLatency],
    ['(b) through svc', upstream.viaSvc, upstream.viaSvcLatency],
  ] as const) {
    console.log(`${name.padEnd(18)} ${format(load.requestsPerSecond).padStart(7)}   ${format(latency.p50).padStart(7)}   ${format(latency.p99).padStart(7)}`);
  }
  const goal = delayMs > 0 ? '(goal >= 0.9)' : '(no goal: the upstream does no work, so this is svc\'s own per-request cost against a bare HTTP answer)';
  console.log(`throughput b/a = ${ratio(upstream.viaSvc.requestsPerSecond, upstream.direct.requestsPerSecond)}   ${goal}`);
  console.log(`added latency p50 = ${format((upstream.viaSvcLatency.p50 - upstream.directLatency.p50) / 1000, 3)} ms (goal < 1 ms), p99 = ${format((upstream.viaSvcLatency.p99 - upstream.directLatency.p99) / 1000, 3)} ms`);
}
