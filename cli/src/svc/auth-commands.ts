/**
 * `svc login`, `svc logout`, `svc whoami` and `svc password` (one's own password).
 */
import type { Me } from '@svc/sdk';
import { Command } from 'commander';
import { showList } from '../output.js';
import { promptNewPassword, promptSecret } from '../prompt.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { createContext, withConnectionOptions, type ConnectionOptions } from './context.js';
import { ssoLogin } from './sso-login.js';

/** Adds the session commands to `program`. */
export function registerAuthCommands(program: Command): void {
  withConnectionOptions(program.command('login'))
    .description('Log in and keep the session for this endpoint (in $SVC_HOME/cli/sessions.json, mode 0600)')
    .option('--username <name>', 'your username')
    .option('--password <password>', 'your password (prompted without echo when absent; read from stdin when it is not a terminal)')
    .option('--sso', "sign in through the server's identity provider (single sign-on) in a browser")
    .option('--no-browser', 'with --sso: only print the sign-in URL, do not open a browser')
    .option('--device', 'with --sso: sign in with a code on any device (the device authorization grant, where the provider offers it)')
    .option('--sso-timeout <seconds>', 'with --sso: how long to wait for the browser', '300')
    .action(async (options: ConnectionOptions & { username?: string; password?: string; sso?: boolean; browser: boolean; device?: boolean; ssoTimeout: string }) => {
      if (options.device === true && options.sso !== true) throw new CliError(ExitCode.usage, '--device goes with --sso');
      if (options.sso === true) {
        if (options.username !== undefined || options.password !== undefined) throw new CliError(ExitCode.usage, '--sso signs in through the identity provider: leave out --username and --password');
        const timeoutSeconds = Number(options.ssoTimeout);
        if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 3600) throw new CliError(ExitCode.usage, '--sso-timeout must be a whole number of seconds from 1 to 3600');
        const context = createContext(options, { session: { loginAs: null } });
        const username = await ssoLogin({ endpoint: context.endpoint, sessions: context.sessions, output: context.output, openBrowser: options.browser, timeoutSeconds, device: options.device === true });
        context.output.done(`Logged in to ${context.endpoint} as ${username} (single sign-on).`, { endpoint: context.endpoint, username, must_change_password: false });
        return;
      }
      if (options.username === undefined) throw new CliError(ExitCode.usage, 'svc login needs --username <name>, or --sso to sign in through the identity provider');
      const username = options.username;
      const context = createContext(options, { session: { loginAs: username } });
      const password = options.password ?? (await promptSecret(`Password for ${username}: `));
      const pair = await context.client.login(username, password);
      context.output.done(`Logged in to ${context.endpoint} as ${username}.`, { endpoint: context.endpoint, username, must_change_password: pair.must_change_password === true });
      if (pair.must_change_password === true) context.output.note('Your password must be changed: run svc password');
      if (context.apiKey !== undefined && options.apiKey === undefined) {
        context.output.note('Note: SVC_API_KEY is set, so other commands use that key rather than this session; unset it to use the session.');
      }
    });

  withConnectionOptions(program.command('logout'))
    .description("End this endpoint's session on the server and forget it")
    .action(async (options: ConnectionOptions) => {
      const context = createContext(options, { session: { loginAs: null } });
      const stored = context.sessions.get(context.endpoint);
      if (stored === null) return context.output.done(`Not logged in to ${context.endpoint}.`, { endpoint: context.endpoint, logged_out: false });
      try {
        await context.client.logout();
      } catch (error) {
        // The session is forgotten locally either way; a refresh token the server never saw revoked expires.
        context.output.note(`The server did not confirm the logout (${(error as Error).message}); the local session is deleted.`);
      }
      context.output.done(`Logged out of ${context.endpoint} (${stored.username}).`, { endpoint: context.endpoint, logged_out: true });
    });

  withConnectionOptions(program.command('whoami'))
    .description('Show who you are on this endpoint and the permissions in force')
    .action(async (options: ConnectionOptions) => {
      const context = createContext(options);
      const me: Me = await context.client.auth.me();
      context.output.record(me, [
        ['username', me.username],
        ['user id', me.id],
        ['authenticated by', me.auth_type === 'api_key' && me.api_key !== null ? `API key ${me.api_key.name} (${me.api_key.id})` : me.auth_type],
        ['permissions', showList(me.permissions)],
        ['must change password', me.must_change_password ? 'yes' : 'no'],
        ['endpoint', context.endpoint],
      ]);
    });

  withConnectionOptions(program.command('password'))
    .description('Change your own password (needs the current one); your other sessions end')
    .option('--current-password <password>', 'your current password (prompted when absent)')
    .option('--new-password <password>', 'the new password (prompted twice when absent)')
    .action(async (options: ConnectionOptions & { currentPassword?: string; newPassword?: string }) => {
      const context = createContext(options);
      const current = options.currentPassword ?? (await promptSecret('Current password: '));
      const next = options.newPassword ?? (await promptNewPassword());
      await context.client.auth.changePassword({ current_password: current, new_password: next });
      context.output.done('Password changed; your other sessions have ended.');
    });
}
