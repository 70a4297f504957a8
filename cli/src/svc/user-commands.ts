/**
 * `svc users …`: list, create, update (enable, disable, permissions), delete and set another user's
 * password. Needs `users:manage`.
 */
import type { User } from '@svc/sdk';
import { Command, Option } from 'commander';
import { CliError, ExitCode } from '../exit-codes.js';
import { showList, showTime, type Column } from '../output.js';
import { promptNewPassword } from '../prompt.js';
import { createContext, withConnectionOptions, type ConnectionOptions } from './context.js';
import { parsePermissionList } from './parse.js';
import { resolveUserId } from './resolve-user.js';

const userColumns: Column<User>[] = [
  { heading: 'ID', value: (u) => u.id, keep: true },
  { heading: 'USERNAME', value: (u) => u.username },
  { heading: 'ENABLED', value: (u) => (u.enabled ? 'yes' : 'no') },
  { heading: 'PERMISSIONS', value: (u) => showList(u.permissions) },
  { heading: 'SOURCE', value: (u) => u.source },
  { heading: 'CREATED', value: (u) => showTime(u.created_at) },
];

const permissionsHelp = 'permissions, comma-separated (e.g. models:list,models:read); none for no permission';

/** Adds `svc users` and its subcommands to `program`. */
export function registerUserCommands(program: Command): void {
  const users = program.command('users').description('Manage users (needs users:manage)');

  withConnectionOptions(users.command('list'))
    .description('List users')
    .action(async (options: ConnectionOptions) => {
      const context = createContext(options);
      context.output.table(await context.client.users.list(), userColumns);
    });

  withConnectionOptions(users.command('create'))
    .description('Create a user (you may grant only permissions you hold)')
    .argument('<username>', 'the new username')
    .option('--password <password>', 'their password (prompted twice without echo when absent)')
    .option('--permissions <list>', permissionsHelp, parsePermissionList, [])
    .option('--must-change-password', 'make them choose a new password at first login')
    .action(async (username: string, options: ConnectionOptions & { password?: string; permissions: ReturnType<typeof parsePermissionList>; mustChangePassword?: boolean }) => {
      const context = createContext(options);
      const password = options.password ?? (await promptNewPassword(`Password for ${username}: `));
      const user = await context.client.users.create({
        username,
        password,
        permissions: options.permissions,
        ...(options.mustChangePassword === true ? { must_change_password: true } : {}),
      });
      context.output.done(`Created user ${user.username} (${user.id}) with permissions: ${showList(user.permissions)}.`, user);
    });

  withConnectionOptions(users.command('update'))
    .description('Enable, disable or re-permission a user (by username or id)')
    .argument('<user>', 'username or id')
    .addOption(new Option('--enable', 'enable the user').conflicts('disable'))
    .addOption(new Option('--disable', 'disable the user: their sessions, tokens and keys stop working'))
    .option('--permissions <list>', `replace their ${permissionsHelp}`, parsePermissionList)
    .action(async (user: string, options: ConnectionOptions & { enable?: boolean; disable?: boolean; permissions?: ReturnType<typeof parsePermissionList> }) => {
      if (options.enable === undefined && options.disable === undefined && options.permissions === undefined) {
        throw new CliError(ExitCode.usage, 'nothing to change: pass --enable, --disable or --permissions');
      }
      const context = createContext(options);
      const id = await resolveUserId(context.client, user);
      const updated = await context.client.users.update(id, {
        ...(options.enable === true ? { enabled: true } : {}),
        ...(options.disable === true ? { enabled: false } : {}),
        ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
      });
      context.output.done(
        `Updated user ${updated.username}: ${updated.enabled ? 'enabled' : 'disabled'}, permissions: ${showList(updated.permissions)}.`,
        updated,
      );
    });

  withConnectionOptions(users.command('delete'))
    .description('Delete a user (by username or id) with their keys and sessions')
    .argument('<user>', 'username or id')
    .action(async (user: string, options: ConnectionOptions) => {
      const context = createContext(options);
      const id = await resolveUserId(context.client, user);
      await context.client.users.delete(id);
      context.output.done(`Deleted user ${user}.`, { id, deleted: true });
    });

  withConnectionOptions(users.command('password'))
    .description("Set another user's password (by username or id); their sessions end. For your own, use: svc password")
    .argument('<user>', 'username or id')
    .option('--password <password>', 'the new password (prompted twice without echo when absent)')
    .option('--must-change-password', 'make them choose a new password at next login')
    .action(async (user: string, options: ConnectionOptions & { password?: string; mustChangePassword?: boolean }) => {
      const context = createContext(options);
      const id = await resolveUserId(context.client, user);
      const password = options.password ?? (await promptNewPassword(`New password for ${user}: `));
      await context.client.users.setPassword(id, { new_password: password, ...(options.mustChangePassword === true ? { must_change_password: true } : {}) });
      context.output.done(`Password of ${user} changed; their sessions have ended.`, { id, password_changed: true });
    });
}
