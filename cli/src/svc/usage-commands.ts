/**
 * `svc usage`: metered model calls over time (`GET /v1/usage`): one's own, or everyone's with
 * `usage:read_all`. A table per hour or UTC day grouped by key, user or model; `--json` prints the
 * server's report, `--csv` its CSV export.
 */
import type { UsageQuery, UsageReportRow } from '@svc/sdk';
import { Command, InvalidArgumentError } from 'commander';
import { type Column } from '../output.js';
import { createContext, withConnectionOptions, type ConnectionOptions } from './context.js';
import { definedFields } from './defined-fields.js';
import { resolveKeyId } from './resolve-key.js';
import { resolveUserId } from './resolve-user.js';

interface UsageOptions extends ConnectionOptions {
  from?: string;
  to?: string;
  groupBy?: 'key' | 'user' | 'model';
  interval?: 'hour' | 'day';
  user?: string;
  key?: string;
  model?: string;
  csv?: boolean;
}

/** A value of `allowed`, for an option. */
function oneOf<T extends string>(allowed: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(allowed as readonly string[]).includes(value)) throw new InvalidArgumentError(`use one of: ${allowed.join(', ')}`);
    return value as T;
  };
}

/** Whole numbers with thousands separators, so token counts read at a glance. */
const count = (value: number): string => value.toLocaleString('en-US');

/** The columns of the usage table; the group column names what the rows are grouped by. */
function usageColumns(groupBy: 'key' | 'user' | 'model', interval: 'hour' | 'day'): Column<UsageReportRow>[] {
  const absent = groupBy === 'key' ? '(session)' : '(none)';
  return [
    { heading: interval === 'day' ? 'DAY' : 'HOUR', value: (row) => (interval === 'day' ? row.period_start.slice(0, 10) : `${row.period_start.slice(0, 13)}:00Z`) },
    { heading: groupBy.toUpperCase(), value: (row) => row.group ?? absent, keep: true },
    { heading: 'CALLS', value: (row) => count(row.calls) },
    { heading: 'ERRORS', value: (row) => count(row.errors) },
    { heading: 'PROMPT', value: (row) => count(row.prompt_tokens) },
    { heading: 'COMPLETION', value: (row) => count(row.completion_tokens) },
    { heading: 'TOTAL', value: (row) => count(row.total_tokens) },
    { heading: 'MEAN MS', value: (row) => count(row.mean_latency_ms) },
  ];
}

/** Adds `svc usage` to `program`. */
export function registerUsageCommands(program: Command): void {
  withConnectionOptions(program.command('usage'))
    .description("Show model usage per hour or day (your own; everyone's with usage:read_all)")
    .option('--from <time>', 'start: now-<N>m|h|d|w, now, epoch milliseconds or ISO 8601 (default: 7 days, or 24 hours with --interval hour, before --to)')
    .option('--to <time>', 'end, exclusive, in the same forms (default: now)')
    .option('--group-by <what>', 'key, user or model (default: model)', oneOf(['key', 'user', 'model'] as const))
    .option('--interval <bucket>', 'hour or day (UTC; default: day)', oneOf(['hour', 'day'] as const))
    .option('--user <name or id>', "only this user's calls (another user's needs usage:read_all)")
    .option('--key <name or id>', "only this API key's calls")
    .option('--model <name>', 'only calls to this model')
    .option('--csv', 'print the CSV export instead of a table')
    .action(async (options: UsageOptions) => {
      const context = createContext(options);
      const query: UsageQuery = definedFields({
        start: options.from,
        end: options.to,
        group_by: options.groupBy,
        interval: options.interval,
        user_id: options.user === undefined ? undefined : await resolveUserId(context.client, options.user),
        key_id: options.key === undefined ? undefined : await resolveKeyId(context.client, options.key),
        model: options.model,
      });
      if (options.csv === true) {
        process.stdout.write(await context.client.usage.exportCsv(query));
        return;
      }
      const report = await context.client.usage.report(query);
      if (context.output.json) return context.output.data(report);
      context.output.table(report.data, usageColumns(report.group_by, report.interval));
      const totals = report.data.reduce((sum, row) => ({ calls: sum.calls + row.calls, tokens: sum.tokens + row.total_tokens }), { calls: 0, tokens: 0 });
      context.output.note(`${report.scope === 'all' ? "everyone's" : 'your'} usage from ${report.start} to ${report.end}: ${count(totals.calls)} calls, ${count(totals.tokens)} tokens`);
    });
}
