/**
 * The current use of keys or users beside their limits: tokens and requests of the current UTC day
 * and calendar month, from one `GET /v1/usage` (daily rows of the last 32 days, grouped by key or
 * user). "Today" and "this month" are taken from the server's clock (the report's `end`), not the
 * browser's, so they are the periods the server's budgets count.
 */
import type { UsageReport } from '@svc/sdk';
import { client } from '../api/client.js';
import { useLoader, type Loaded } from '../api/use-loader.js';

/** What one key or user used in the current periods. */
export interface CurrentUse {
  todayTokens: number;
  todayCalls: number;
  monthTokens: number;
  monthCalls: number;
}

/** The current use of each group (absent: nothing used this month). */
export type CurrentUseByGroup = ReadonlyMap<string, CurrentUse>;

/** No use at all. */
export const noUse: CurrentUse = { todayTokens: 0, todayCalls: 0, monthTokens: 0, monthCalls: 0 };

/** The use of each group of a daily report in the UTC day and month that hold the report's end. */
export function currentUseOf(report: UsageReport): CurrentUseByGroup {
  const last = new Date(Date.parse(report.end) - 1);
  const today = Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), last.getUTCDate());
  const month = Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), 1);
  const uses = new Map<string, CurrentUse>();
  for (const row of report.data) {
    if (row.group === null) continue;
    const start = Date.parse(row.period_start);
    if (start < month) continue;
    const use = { ...(uses.get(row.group) ?? noUse) };
    use.monthTokens += row.total_tokens;
    use.monthCalls += row.calls;
    if (start >= today) {
      use.todayTokens += row.total_tokens;
      use.todayCalls += row.calls;
    }
    uses.set(row.group, use);
  }
  return uses;
}

/**
 * Loads the current use of every key or user the caller may see (their own; everyone's with
 * `usage:read_all`). `reload` reads it again (after a change, or on demand).
 */
export function useCurrentUse(groupBy: 'key' | 'user'): Loaded<CurrentUseByGroup> {
  return useLoader(async () => currentUseOf(await client.usage.report({ start: 'now-32d', interval: 'day', group_by: groupBy })), [groupBy]);
}

/** The budget's period use: today's or this month's tokens. */
export function budgetUse(use: CurrentUse, period: 'day' | 'month'): number {
  return period === 'day' ? use.todayTokens : use.monthTokens;
}
