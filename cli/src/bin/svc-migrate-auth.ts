#!/usr/bin/env node
/**
 * `svc-migrate-auth`: moves the users and API keys of a legacy JSON configuration (`--auth-config`,
 * removed in release 3.0) into the database. See `docs/migration.md`.
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { Command } from 'commander';
import { openStorage, SqliteStorage } from '@svc/server/internals';
import { CliError, ExitCode } from '../exit-codes.js';
import { runMain } from '../main.js';
import { migrationEncryption } from '../offline/encryption-key.js';
import { validateLegacyConfig } from '../offline/legacy-config.js';
import { applyMigration } from '../offline/migration-apply.js';
import { planMigration } from '../offline/migration-plan.js';
import { planData, planReport } from '../offline/plan-report.js';
import { serverConfig } from '../offline/offline-config.js';

interface Options {
  authConfig: string;
  dbPath?: string;
  encryptionKey?: string;
  dryRun?: boolean;
  force?: boolean;
  json?: boolean;
}

const program = new Command('svc-migrate-auth')
  .description(
    'Migrate the users and API keys of a legacy JSON auth configuration into the database (one transaction; safe to run again).\n' +
      'Exit codes: 0 done, 1 usage or an invalid file (every problem is listed with its JSON path), 4 the database conflicts with the file, 5 database failure.',
  )
  .requiredOption('--auth-config <file>', 'the legacy JSON file (the old --auth-config)')
  .option('--db-path <path>', 'the database (default: $SVC_AUTH_DB_PATH, else $SVC_HOME/auth/auth.db); created when missing')
  .option('--encryption-key <key>', "the server's API key encryption key: the value of SVC_AUTH_ENCRYPTION_KEY or the text of $SVC_HOME/auth/encryption_key (default: the server's configured key)")
  .option('--dry-run', 'print the plan and write nothing (the database file stays byte-identical; a missing one is not created)')
  .option('--force', 'the file wins: reset existing users\' passwords and permissions to the file\'s and re-encrypt their stored legacy keys with --encryption-key')
  .option('--json', 'print the plan as JSON')
  .showHelpAfterError()
  .action(async (options: Options) => {
    const users = readLegacyUsers(options.authConfig);
    const config = serverConfig();
    const encryption = migrationEncryption(options.encryptionKey, config);
    const dbPath = options.dbPath === undefined ? config.databasePath : resolve(options.dbPath);
    const planOptions = { force: options.force === true, passwordMinLength: config.passwordMinLength, encryption };
    if (options.dryRun === true) {
      const storage = SqliteStorage.open(dbPath, { readOnly: true });
      try {
        const plan = await planMigration(users, storage, planOptions);
        if (plan.conflicts.length > 0) throw conflictError(plan.conflicts);
        print(plan, options, true);
      } finally {
        await storage?.close();
      }
      return;
    }
    const storage = await openStorage({ kind: 'sqlite', path: dbPath });
    try {
      const plan = await applyMigration(storage, users, { ...planOptions, source: basename(options.authConfig) });
      print(plan, options, false);
      process.stderr.write(
        'The legacy JWT secret is not carried over: tokens of the old server are not accepted; users log in again. ' +
          'Remove --auth-config from your start command.\n',
      );
    } finally {
      await storage.close();
    }
  });

function readLegacyUsers(file: string) {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(ExitCode.usage, `cannot read ${file}: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text around the fault, which may be a password or a key: only the position is told.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new CliError(ExitCode.usage, `${file} is not valid JSON${position === undefined ? '' : ` (at character ${position})`}`);
  }
  const validation = validateLegacyConfig(document);
  if (validation.ok) return validation.users;
  for (const problem of validation.problems) process.stderr.write(`${file}: ${problem.path}: ${problem.message}\n`);
  throw new CliError(ExitCode.usage, `${validation.problems.length} problem${validation.problems.length === 1 ? '' : 's'} in ${file}; nothing was written`);
}

function print(plan: Parameters<typeof planReport>[0], options: Options, dryRun: boolean): void {
  process.stdout.write(options.json === true ? `${JSON.stringify(planData(plan, dryRun), null, 2)}\n` : planReport(plan, !dryRun));
}

function conflictError(conflicts: readonly { path: string; message: string }[]): CliError {
  for (const conflict of conflicts) process.stderr.write(`${conflict.path}: ${conflict.message}\n`);
  return new CliError(ExitCode.notFoundOrConflict, `the database conflicts with the file (${conflicts.length}); nothing would be written`);
}

await runMain('svc-migrate-auth', () => program.parseAsync(process.argv));
