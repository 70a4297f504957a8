#!/usr/bin/env node
/**
 * `svc-unban`: an operator with shell access lists and lifts bans and account lockouts straight in
 * the database (the server may be running), when no administrator can reach the API any more.
 * See `docs/cli.md`.
 */
import { Command } from 'commander';
import { openStorage, type Storage } from '@svc/server/internals';
import { CliError, ExitCode } from '../exit-codes.js';
import { runMain } from '../main.js';
import { existingDatabasePath, serverConfig } from '../offline/offline-config.js';
import { liftBans, listBans, type BanRow, type LiftTarget } from '../offline/unban.js';

const dbPathOption = ['--db-path <path>', 'the database (default: $SVC_AUTH_DB_PATH, else $SVC_HOME/auth/auth.db)'] as const;

/** Opens the database named by `--db-path` (or the server's), runs `work` and closes it. */
async function withStorage<T>(dbPath: string | undefined, work: (storage: Storage) => Promise<T>): Promise<T> {
  const storage = await openStorage({ kind: 'sqlite', path: await existingDatabasePath(dbPath, serverConfig()) });
  try {
    return await work(storage);
  } finally {
    await storage.close();
  }
}

function describeRow(row: BanRow): string {
  const who = row.kind === 'account' ? `account ${row.username ?? '(deleted)'}` : row.kind === 'ip' ? `address ${row.ip}` : `credential ${row.credential} from ${row.ip}`;
  return `${who}: ${row.failures} failures, until ${row.until} (${row.remaining_seconds} s left)`;
}

const program = new Command('svc-unban')
  .description(
    'List and lift IP bans, credential bans and account lockouts directly in the database (audited as offline_unban).\n' +
      'Exit codes: 0 done, 1 usage, 4 no such user or database, 5 database failure.',
  )
  .showHelpAfterError();

program
  .command('list')
  .description('list the active bans and lockouts')
  .option(...dbPathOption)
  .option('--json', 'print JSON')
  .action(async (options: { dbPath?: string; json?: boolean }) => {
    const rows = await withStorage(options.dbPath, (storage) => listBans(storage, Date.now()));
    if (options.json === true) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    else if (rows.length === 0) process.stdout.write('No active bans or lockouts.\n');
    else process.stdout.write(rows.map(describeRow).join('\n') + '\n');
  });

program
  .command('lift')
  .description('lift the bans of one address (--ip), the lockout of one account (--user), or every ban and lockout (--all)')
  .option('--ip <address>', 'a client address: its IP ban and its credential bans')
  .option('--user <username>', 'an account: its lockout')
  .option('--all', 'every ban and lockout')
  .option(...dbPathOption)
  .action(async (options: { ip?: string; user?: string; all?: boolean; dbPath?: string }) => {
    const targets: LiftTarget[] = [];
    if (options.ip !== undefined) targets.push({ ip: options.ip });
    if (options.user !== undefined) targets.push({ username: options.user });
    if (options.all === true) targets.push({ all: true });
    if (targets.length !== 1) throw new CliError(ExitCode.usage, 'name exactly one of --ip <address>, --user <username> or --all');
    const lifted = await withStorage(options.dbPath, (storage) => liftBans(storage, targets[0] as LiftTarget, Date.now()));
    process.stdout.write(lifted.length === 0 ? 'Nothing was banned; the failure counts are reset.\n' : `Lifted ${lifted.length} ban${lifted.length === 1 ? '' : 's'}.\n`);
  });

await runMain('svc-unban', () => program.parseAsync(process.argv));
