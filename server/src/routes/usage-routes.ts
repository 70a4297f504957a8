/**
 * `GET /v1/usage`: metered model calls over time (issue 17). Everyone sees their own calls; with
 * `usage:read_all` everyone's. JSON, or CSV with `format=csv` (quoted and formula-guarded like the
 * audit export). The totals come from the usage store (`storage/port/usage.ts`); grouping is the
 * pure `limits/usage-meter.ts`.
 */
import { csvField } from '../audit/audit-format.js';
import { parseAuditTime } from '../audit/time-range.js';
import { holds } from '../auth/permissions.js';
import type { Handlers } from '../contract/handlers.js';
import { ApiError } from '../errors.js';
import { groupUsage, type UsageReportRow } from '../limits/usage-meter.js';
import { usageRange } from '../limits/usage-range.js';
import type { Clock } from '../runtime/clock.js';
import type { UsageQuery, UsageTotalsStore } from '../limits/usage-meter.js';

/** What the usage routes need. */
export interface UsageRouteDependencies {
  usage: UsageTotalsStore;
  clock: Clock;
  /** Writes this process's pending metered calls first, so a report includes them. */
  flush?: () => Promise<void>;
}

const csvColumns = ['period_start', 'group', 'calls', 'errors', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'estimated_calls', 'mean_latency_ms'] as const;

const present = (row: UsageReportRow) => ({
  period_start: new Date(row.periodStart).toISOString(),
  group: row.group,
  calls: row.calls,
  errors: row.errors,
  prompt_tokens: row.promptTokens,
  completion_tokens: row.completionTokens,
  total_tokens: row.totalTokens,
  estimated_calls: row.estimatedCalls,
  mean_latency_ms: row.meanLatencyMs,
});

/** The report as CSV text, header row first, CRLF line ends. */
export function usageCsv(rows: readonly UsageReportRow[]): string {
  const lines = rows.map((row) => {
    const presented = present(row);
    return csvColumns.map((column) => csvField(presented[column])).join(',');
  });
  return [csvColumns.join(','), ...lines].map((line) => `${line}\r\n`).join('');
}

/** The handler of `getUsage`. */
export function usageHandlers(dependencies: UsageRouteDependencies): Pick<Handlers, 'getUsage'> {
  return {
    getUsage: async ({ query, principal }) => {
      const now = dependencies.clock.now();
      const interval = query.interval ?? 'day';
      const groupBy = query.group_by ?? 'model';
      const range = usageRange(
        query.start === undefined ? undefined : parseAuditTime(query.start, 'start', now),
        query.end === undefined ? undefined : parseAuditTime(query.end, 'end', now),
        interval,
        now,
      );
      if ('message' in range) throw new ApiError('invalid_request', range.message, { param: range.param });
      const readAll = holds(principal.permissions, 'usage:read_all');
      const ownId = principal.user?.id ?? null;
      if (!readAll && query.user_id !== undefined && query.user_id !== ownId) {
        throw new ApiError('permission_denied', "Seeing another user's usage needs the usage:read_all permission", { param: 'user_id' });
      }
      const filter: UsageQuery = { start: range.start, end: range.end };
      const userId = readAll ? query.user_id : (ownId ?? undefined);
      if (userId !== undefined) filter.userId = userId;
      if (query.key_id !== undefined) filter.keyId = query.key_id;
      if (query.model !== undefined) filter.model = query.model;
      await dependencies.flush?.();
      const rows = groupUsage(await dependencies.usage.totals(filter), groupBy, interval);
      if (query.format === 'csv') {
        const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
        return {
          status: 200,
          raw: usageCsv(rows),
          headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="svc-usage-${stamp}.csv"` },
        };
      }
      return {
        status: 200,
        body: {
          start: new Date(range.start).toISOString(),
          end: new Date(range.end).toISOString(),
          group_by: groupBy,
          interval,
          scope: readAll ? 'all' : 'own',
          data: rows.map(present),
        },
      };
    },
  };
}
