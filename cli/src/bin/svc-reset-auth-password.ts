#!/usr/bin/env node
/**
 * `svc-reset-auth-password`: an operator with shell access sets a new password for an administrator
 * straight in the database (the server may be running). See `docs/cli.md`.
 */
import { Command } from 'commander';
import { openStorage } from '@svc/server/internals';
import { CliError, ExitCode } from '../exit-codes.js';
import { runMain } from '../main.js';
import { existingDatabasePath, serverConfig } from '../offline/offline-config.js';
import { assertAcceptable, findAdministrator, resetAdministratorPassword } from '../offline/reset-password.js';
import { canPromptInteractively, confirm, promptNewPassword } from '../prompt.js';

const program = new Command('svc-reset-auth-password')
  .description(
    "Set a new password for a user holding admin, directly in the database; ends that user's sessions and access tokens.\n" +
      'Exit codes: 0 done, 1 usage or refused password, 3 the user is not an administrator, 4 no such user or database, 5 database failure, 130 interrupted.',
  )
  .requiredOption('--username <name>', 'the administrator')
  .option('--password <password>', 'the new password (prompted twice without echo when absent; read from stdin when it is not a terminal)')
  .option('--db-path <path>', 'the database (default: $SVC_AUTH_DB_PATH, else $SVC_HOME/auth/auth.db)')
  .option('-y, --yes', 'do not ask for confirmation at a terminal')
  .showHelpAfterError()
  .action(async (options: { username: string; password?: string; dbPath?: string; yes?: boolean }) => {
    const config = serverConfig();
    const path = await existingDatabasePath(options.dbPath, config);
    const storage = await openStorage({ kind: 'sqlite', path });
    try {
      const user = await findAdministrator(storage, options.username);
      const password = options.password ?? (await promptNewPassword(`New password for ${user.username}: `));
      assertAcceptable(password, config.passwordMinLength, user.username);
      if (canPromptInteractively() && options.yes !== true && !(await confirm(`Reset the password of ${user.username} in ${path} and end all their sessions?`))) {
        throw new CliError(ExitCode.usage, 'not confirmed; nothing was changed');
      }
      await resetAdministratorPassword(storage, user, password);
      process.stdout.write(`Password of ${user.username} reset; their sessions and access tokens are revoked.\n`);
      if (!user.enabled) process.stderr.write(`Note: ${user.username} is disabled; another administrator can enable the account (svc users update ${user.username} --enable).\n`);
    } finally {
      await storage.close();
    }
  });

await runMain('svc-reset-auth-password', () => program.parseAsync(process.argv));
