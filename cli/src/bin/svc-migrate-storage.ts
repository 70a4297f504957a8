#!/usr/bin/env node
/**
 * `svc-migrate-storage`: moves a deployment from its SQLite file to PostgreSQL, offline: copies every
 * row as stored, then verifies counts on both sides and the audit chain on the target. Idempotent,
 * with `--dry-run`; refuses a non-empty target unless `--into-non-empty`. See `docs/cli.md` and
 * `docs/deployment.md`.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import {
  connectionConfig,
  DatabaseUrlError,
  OFFLINE_TOOL_CONNECT_TIMEOUT_MS,
  OFFLINE_TOOL_WAIT_MS,
  openStorageForTool,
  parseDatabaseUrl,
  PostgresMigrator,
  PostgresStorage,
  redactDatabaseUrl,
  SqliteStorage,
  type Storage,
  whileNotReady,
} from '@svc/server/internals';
import { CliError, ExitCode } from '../exit-codes.js';
import { describeLocalError, runMain } from '../main.js';
import { describeMigration, migrateStorage } from '../offline/storage-migration.js';
import { renderTable } from '../table.js';

interface Options {
  from: string;
  to: string;
  dryRun?: boolean;
  intoNonEmpty?: boolean;
  json?: boolean;
}

/** The source: an existing svc SQLite database, opened read-only (an older schema is migrated in a copy in memory). */
function openSource(from: string): Storage {
  const path = resolve(from);
  if (!existsSync(path)) throw new CliError(ExitCode.notFoundOrConflict, `no database at ${path}; --from names the SQLite file (SVC_HOME/auth/auth.db)`);
  let source: SqliteStorage | null;
  try {
    source = SqliteStorage.open(path, { readOnly: true });
  } catch (error) {
    if (error instanceof Error && error.name === 'StorageSchemaError') throw new CliError(ExitCode.usage, `the source ${path}: ${error.message}`);
    throw new CliError(ExitCode.notFoundOrConflict, `${path} is not an svc database (not an SQLite file with svc's schema); nothing was changed`);
  }
  if (source === null) throw new CliError(ExitCode.notFoundOrConflict, `${path} is not an svc database (it holds no svc schema); nothing was changed`);
  return source;
}

/**
 * The target: svc's PostgreSQL database, migrated to the current schema like a server's first start.
 * On a dry run nothing is migrated: a database without svc's schema yet is an empty target (null),
 * one at the current schema is opened as it is, one at an older schema is refused.
 */
async function openTarget(to: string, dryRun: boolean): Promise<Storage | null> {
  let url: string;
  try {
    url = parseDatabaseUrl(to, '--to').url;
  } catch (error) {
    if (error instanceof DatabaseUrlError) throw new CliError(ExitCode.usage, error.message);
    throw error;
  }
  try {
    if (!dryRun) return await openStorageForTool({ kind: 'postgres', url, poolMax: 2 });
    const status = await whileNotReady(() => new PostgresMigrator(connectionConfig({ url, connectionTimeoutMs: OFFLINE_TOOL_CONNECT_TIMEOUT_MS })).status(), OFFLINE_TOOL_WAIT_MS);
    if (status.current === 0) return null;
    if (status.applied.length > 0) {
      throw new CliError(ExitCode.usage, `the target's schema (version ${status.current}) is older than this svc's (version ${status.latest}); run without --dry-run (it migrates the target first), or start this svc on it once`);
    }
    return new PostgresStorage({ url, poolMax: 2, listen: false });
  } catch (error) {
    if (error instanceof CliError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const schema = error instanceof Error && error.name === 'StorageSchemaError';
    throw new CliError(schema ? ExitCode.usage : ExitCode.unavailable, `the target ${redactDatabaseUrl(to)}: ${message}`);
  }
}

async function run(options: Options): Promise<void> {
  const source = openSource(options.from);
  try {
    const target = await openTarget(options.to, options.dryRun === true);
    try {
      const report = await migrateStorage(source, target, { dryRun: options.dryRun === true, intoNonEmpty: options.intoNonEmpty === true });
      if (options.json === true) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return;
      }
      const { headings, rows, closing } = describeMigration(report);
      process.stdout.write(`${renderTable(headings, rows, process.stdout.columns ?? 100)}${closing}\n`);
    } finally {
      await target?.close();
    }
  } finally {
    await source.close();
  }
}

const program = new Command('svc-migrate-storage')
  .description(
    'Copy a deployment from its SQLite database to PostgreSQL (users, API keys, sessions, settings, bans, models, the audit trail), then verify it.\n' +
      'Exit codes: 0 done (or nothing to do), 1 usage, 4 no source database or a non-empty target, 5 database failure, 6 verification failed.',
  )
  .requiredOption('--from <sqlite file>', 'the SQLite database (SVC_HOME/auth/auth.db)')
  .requiredOption('--to <postgres url>', 'the PostgreSQL database (postgres://user:password@host:5432/database)')
  .option('--dry-run', 'print what would be copied; change nothing')
  .option('--into-non-empty', 'merge into a target that already holds rows (rows already there are kept as they are)')
  .option('--json', 'print the report as JSON')
  .showHelpAfterError()
  .action((options: Options) => run(options));

/** Every failure as one line, with any password in the target's URL hidden. */
function describe(error: unknown) {
  const described = describeLocalError(error);
  const to = process.argv.indexOf('--to');
  const url = to < 0 ? undefined : process.argv[to + 1];
  let message = redactDatabaseUrl(described.message);
  const password = url === undefined ? '' : passwordOf(url);
  if (password.length > 0) message = message.replaceAll(password, '***');
  return { ...described, message };
}

function passwordOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}

await runMain('svc-migrate-storage', () => program.parseAsync(process.argv), describe);
