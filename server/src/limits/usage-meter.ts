/**
 * Usage metering, pure: turns each model call into an hourly total (hour, key, user, model), sums
 * totals, and groups them for the usage report (`GET /v1/usage`). The server keeps a
 * {@link UsageMeter} per process and flushes its batch to the store; nothing here does I/O.
 */
import type { UsageTotal } from '../storage/port/usage.js';

/** The port's usage types, for the routes (which never import the storage themselves). */
export type { UsageQuery, UsageTotalsStore } from '../storage/port/usage.js';

/** One hour in milliseconds. */
export const HOUR_MS = 3_600_000;
/** One day in milliseconds. */
export const DAY_MS = 24 * HOUR_MS;

/** One metered model call. */
export interface MeteredCall {
  /** When the call ended (epoch ms). */
  at: number;
  keyId: string | null;
  userId: string | null;
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** True when the tokens were estimated (the engine reported no `usage`). */
  estimated: boolean;
  /** True when the call failed (status ≥ 400 or a stream cut off). */
  failed: boolean;
  latencyMs: number;
}

/** The start of the UTC hour holding `at`. */
export const hourStart = (at: number): number => Math.floor(at / HOUR_MS) * HOUR_MS;

/** The total one call adds. */
export function totalOf(call: MeteredCall): UsageTotal {
  return {
    hourStart: hourStart(call.at),
    keyId: call.keyId,
    userId: call.userId,
    model: call.model,
    calls: 1,
    errors: call.failed ? 1 : 0,
    promptTokens: Math.max(0, Math.round(call.promptTokens)),
    completionTokens: Math.max(0, Math.round(call.completionTokens)),
    estimatedCalls: call.estimated ? 1 : 0,
    latencyMsSum: Math.max(0, Math.round(call.latencyMs)),
  };
}

const sum = (a: UsageTotal, b: UsageTotal): UsageTotal => ({
  ...a,
  calls: a.calls + b.calls,
  errors: a.errors + b.errors,
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  estimatedCalls: a.estimatedCalls + b.estimatedCalls,
  latencyMsSum: a.latencyMsSum + b.latencyMsSum,
});

const identity = (total: UsageTotal): string => JSON.stringify([total.hourStart, total.keyId, total.userId, total.model]);

/** `totals` with the rows of one (hour, key, user, model) added together, in first-seen order. */
export function mergeUsageTotals(totals: readonly UsageTotal[]): UsageTotal[] {
  const merged = new Map<string, UsageTotal>();
  for (const total of totals) {
    const key = identity(total);
    const seen = merged.get(key);
    merged.set(key, seen === undefined ? { ...total } : sum(seen, total));
  }
  return [...merged.values()];
}

/**
 * The calls metered in this process and not yet written: {@link record} is synchronous and cheap;
 * {@link drain} hands the summed batch to whoever writes it (one statement per batch).
 */
export class UsageMeter {
  #pending = new Map<string, UsageTotal>();

  /** Adds one call to the pending batch. */
  record(call: MeteredCall): void {
    const total = totalOf(call);
    const key = identity(total);
    const seen = this.#pending.get(key);
    this.#pending.set(key, seen === undefined ? total : sum(seen, total));
  }

  /** How many distinct (hour, key, user, model) rows are pending. */
  get pendingRows(): number {
    return this.#pending.size;
  }

  /** The pending batch, emptied. Give it back with {@link restore} when writing it failed. */
  drain(): UsageTotal[] {
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    return batch;
  }

  /** Puts a batch that could not be written back in front of what arrived since. */
  restore(batch: readonly UsageTotal[]): void {
    for (const total of batch) {
      const key = identity(total);
      const seen = this.#pending.get(key);
      this.#pending.set(key, seen === undefined ? { ...total } : sum(total, seen));
    }
  }
}

/** How the usage report groups rows besides time. */
export type UsageGrouping = 'key' | 'user' | 'model';
/** The report's time buckets. */
export type UsageInterval = 'hour' | 'day';

/** One row of the usage report. */
export interface UsageReportRow {
  /** The bucket's start (epoch ms, UTC). */
  periodStart: number;
  /** The group's value: a key id, a user id or a model name (null: calls without a key or user). */
  group: string | null;
  calls: number;
  errors: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  estimatedCalls: number;
  /** Mean latency in ms, rounded (0 without calls). */
  meanLatencyMs: number;
}

/** The start of the UTC bucket holding `at`. */
export const bucketStart = (at: number, interval: UsageInterval): number => Math.floor(at / (interval === 'day' ? DAY_MS : HOUR_MS)) * (interval === 'day' ? DAY_MS : HOUR_MS);

/** Groups hourly totals into report rows: by bucket (oldest first), then by group value. */
export function groupUsage(totals: readonly UsageTotal[], groupBy: UsageGrouping, interval: UsageInterval): UsageReportRow[] {
  const rows = new Map<string, { periodStart: number; group: string | null; total: UsageTotal }>();
  for (const total of totals) {
    const periodStart = bucketStart(total.hourStart, interval);
    const group = groupBy === 'key' ? total.keyId : groupBy === 'user' ? total.userId : total.model;
    const key = JSON.stringify([periodStart, group]);
    const seen = rows.get(key);
    rows.set(key, { periodStart, group, total: seen === undefined ? total : sum(seen.total, total) });
  }
  return [...rows.values()]
    .sort((a, b) => a.periodStart - b.periodStart || (a.group ?? '').localeCompare(b.group ?? ''))
    .map(({ periodStart, group, total }) => ({
      periodStart,
      group,
      calls: total.calls,
      errors: total.errors,
      promptTokens: total.promptTokens,
      completionTokens: total.completionTokens,
      totalTokens: total.promptTokens + total.completionTokens,
      estimatedCalls: total.estimatedCalls,
      meanLatencyMs: total.calls === 0 ? 0 : Math.round(total.latencyMsSum / total.calls),
    }));
}
