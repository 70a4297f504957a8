/**
 * The usage page's arithmetic, without React: a report's rows summed per time bucket (every bucket
 * of the range, empty ones included, for the chart) and per group (for the table), and the totals
 * of the whole range. Buckets are UTC hours or UTC days, as the server sums them.
 */
import type { UsageReport, UsageReportRow } from '@svc/sdk';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The sums of some rows. */
export interface UsageSums {
  calls: number;
  errors: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  estimatedCalls: number;
  /** Mean latency over the calls (weighted by each row's calls), or null without calls. */
  meanLatencyMs: number | null;
}

/** The sums of one time bucket. */
export interface UsageBucket extends UsageSums {
  /** The bucket's start, epoch ms (UTC hour or day). */
  start: number;
}

/** The sums of one group (key id, user id or model; null for calls without a key or a user). */
export interface UsageGroupTotal extends UsageSums {
  group: string | null;
}

/** What a chart can show of a bucket. */
export type UsageMetric = 'tokens' | 'requests';

/** The sums of `rows` (zeros for none). */
export function sumRows(rows: readonly UsageReportRow[]): UsageSums {
  let latencyWeighted = 0;
  const sums = { calls: 0, errors: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, estimatedCalls: 0 };
  for (const row of rows) {
    sums.calls += row.calls;
    sums.errors += row.errors;
    sums.promptTokens += row.prompt_tokens;
    sums.completionTokens += row.completion_tokens;
    sums.totalTokens += row.total_tokens;
    sums.estimatedCalls += row.estimated_calls;
    latencyWeighted += row.mean_latency_ms * row.calls;
  }
  return { ...sums, meanLatencyMs: sums.calls === 0 ? null : Math.round(latencyWeighted / sums.calls) };
}

/** The start of the bucket holding `time`. */
function bucketOf(time: number, interval: UsageReport['interval']): number {
  const size = interval === 'hour' ? HOUR_MS : DAY_MS;
  return Math.floor(time / size) * size;
}

/**
 * One bucket per hour or day from the report's start to its end (exclusive), each with the sums of
 * its rows: the empty ones too, so a chart shows the quiet periods as quiet.
 */
export function bucketsOf(report: UsageReport): UsageBucket[] {
  const size = report.interval === 'hour' ? HOUR_MS : DAY_MS;
  const byStart = new Map<number, UsageReportRow[]>();
  for (const row of report.data) {
    const start = bucketOf(Date.parse(row.period_start), report.interval);
    byStart.set(start, [...(byStart.get(start) ?? []), row]);
  }
  const end = Date.parse(report.end);
  const buckets: UsageBucket[] = [];
  for (let start = bucketOf(Date.parse(report.start), report.interval); start < end; start += size) {
    buckets.push({ start, ...sumRows(byStart.get(start) ?? []) });
  }
  return buckets;
}

/** The sums of each group over the whole range, the most tokens first (then the most calls). */
export function totalsByGroup(report: UsageReport): UsageGroupTotal[] {
  const byGroup = new Map<string | null, UsageReportRow[]>();
  for (const row of report.data) byGroup.set(row.group, [...(byGroup.get(row.group) ?? []), row]);
  return [...byGroup.entries()]
    .map(([group, rows]) => ({ group, ...sumRows(rows) }))
    .sort((a, b) => b.totalTokens - a.totalTokens || b.calls - a.calls || String(a.group).localeCompare(String(b.group)));
}

/** The value a chart draws for a bucket. */
export function metricOf(sums: UsageSums, metric: UsageMetric): number {
  return metric === 'tokens' ? sums.totalTokens : sums.calls;
}

/** A bucket's start in words, in UTC (the server's buckets are UTC): `Nov 23` or `Nov 23, 14:00 UTC`. */
export function formatBucket(start: number, interval: UsageReport['interval']): string {
  const date = new Date(start);
  const day = date.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
  if (interval === 'day') return day;
  const hour = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' });
  return `${day}, ${hour} UTC`;
}

/** A count with the reader's digit grouping: `12,400`. */
export function formatCount(value: number): string {
  return value.toLocaleString();
}

/** A count in short form for axis labels: `950`, `12k`, `3.4M`. */
export function formatCompact(value: number): string {
  return new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 }).format(value);
}

/** A "nice" axis maximum at or above `value` (1, 2 or 5 times a power of ten; 1 for 0). */
export function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}
