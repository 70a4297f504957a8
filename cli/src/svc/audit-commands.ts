/**
 * `svc audit …` (`admin`): `verify` checks the audit trail's hash chain on the server and names the
 * first broken record; `search` shows one page of records with the main filters.
 */
import type { AuditRecord, AuditSearchQuery } from '@svc/sdk';
import { Command, InvalidArgumentError } from 'commander';
import { CliError, ExitCode } from '../exit-codes.js';
import { type Column } from '../output.js';
import { createContext, withConnectionOptions, type ConnectionOptions } from './context.js';
import { definedFields } from './defined-fields.js';

/** The table of audit records: a few columns whose text wraps, so that it fits a terminal. */
const recordColumns: Column<AuditRecord>[] = [
  { heading: 'ID', value: (r) => String(r.id), keep: true },
  { heading: 'TIME', value: (r) => `${r.timestamp.slice(0, 10)} ${r.timestamp.slice(11, 19)}Z` },
  { heading: 'EVENT', value: (r) => (r.action === r.event_type ? r.event_type : `${r.event_type} ${r.action}`) },
  { heading: 'STATUS', value: (r) => (r.http_status === null ? r.status : `${r.status} ${r.http_status}`) },
  { heading: 'WHO', value: (r) => [r.user ?? '-', ...(r.api_key_name === null ? [] : [`(key ${r.api_key_name})`])].join(' ') },
  { heading: 'IP', value: (r) => r.client_ip ?? '-' },
  { heading: 'DETAILS', value: describeRecord },
];

/** The model, target and reason of a record, those it has: `model echo; reason …`, else `-`. */
function describeRecord(record: AuditRecord): string {
  const parts = [
    ...(record.model_id === null ? [] : [`model ${record.model_id}`]),
    ...(record.target === null ? [] : [`target ${record.target}`]),
    ...(record.reason === null ? [] : [`reason ${record.reason}`]),
  ];
  return parts.length === 0 ? '-' : parts.join('; ');
}

/** A whole number within bounds, for `--size` and `--page-from`. */
function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\d+$/.test(value) || number < min || number > max) throw new InvalidArgumentError(`use a whole number from ${min} to ${max}`);
    return number;
  };
}

interface SearchOptions extends ConnectionOptions {
  from?: string;
  to?: string;
  user?: string;
  apiKeyName?: string;
  modelId?: string;
  clientIp?: string;
  category?: string;
  status?: string;
  eventType?: string;
  action?: string;
  size?: number;
  pageFrom?: number;
}

/** Adds `svc audit verify` and `svc audit search` to `program`. */
export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description("The audit trail (needs admin)");

  withConnectionOptions(audit.command('verify'))
    .description(`Check the audit trail's hash chain; exit ${ExitCode.integrity} and name the first broken record when it is broken`)
    .action(async (options: ConnectionOptions) => {
      const context = createContext(options);
      const report = await context.client.audit.verify();
      if (context.output.json) context.output.data(report);
      // Broken: the one error line (stderr) names the first broken record, and the exit code says so.
      if (!report.ok) throw new CliError(ExitCode.integrity, `audit chain broken at record ${report.first_broken_id} (${report.reason}) after ${Math.max(report.checked - 1, 0)} intact records`);
      if (!context.output.json) process.stdout.write(`OK: audit chain intact: ${report.checked} records, head ${report.head_hash ?? '(empty)'}\n`);
    });

  withConnectionOptions(audit.command('search'))
    .description('Show audit records, newest first (one page; --json for the records and the total)')
    .option('--from <time>', 'start: now-<N>m|h|d|w, now, epoch milliseconds or ISO 8601 (default: now-1h)')
    .option('--to <time>', 'end, inclusive, in the same forms (default: now)')
    .option('--user <text>', 'username contains this')
    .option('--api-key-name <text>', 'API key name contains this')
    .option('--model-id <text>', 'model id contains this')
    .option('--client-ip <text>', 'client IP contains this')
    .option('--category <list>', 'any of: inference, auth, admin, security, system (comma-separated)')
    .option('--status <list>', 'any of these statuses, e.g. success,login_failed')
    .option('--event-type <list>', 'any of these event types, e.g. api_call,ip_banned')
    .option('--action <list>', 'any of these actions, e.g. login,createUser')
    .option('--size <n>', 'records per page (1-1000, default 50)', wholeNumber(1, 1000))
    .option('--page-from <n>', 'skip this many matching records', wholeNumber(0, 1_000_000))
    .action(async (options: SearchOptions) => {
      const query: AuditSearchQuery = definedFields({
        time_from: options.from,
        time_to: options.to,
        user: options.user,
        api_key_name: options.apiKeyName,
        model_id: options.modelId,
        client_ip: options.clientIp,
        category: options.category,
        status: options.status,
        event_type: options.eventType,
        action: options.action,
        size: options.size,
        page_from: options.pageFrom,
      });
      const context = createContext(options);
      const result = await context.client.audit.search(query);
      if (context.output.json) return context.output.data(result);
      context.output.table(result.hits, recordColumns);
      const first = (options.pageFrom ?? 0) + 1;
      context.output.note(result.hits.length === 0 ? `${result.total} matching records` : `records ${first}-${first + result.hits.length - 1} of ${result.total}`);
    });
}
