/**
 * `svc keys …`: create (the key is printed once), list, update, delete and reveal API keys.
 * `keys:create` for one's own keys; `keys:manage` for everyone's and for reveal.
 */
import type { ApiKey, ApiKeyUpdate, PermissionInput } from '@svc/sdk';
import { Command, Option } from 'commander';
import { CliError, ExitCode } from '../exit-codes.js';
import { showList, showTime, type Column } from '../output.js';
import { createContext, withConnectionOptions, type ConnectionOptions } from './context.js';
import { definedFields } from './defined-fields.js';
import { parseExpiry, parsePermissionList } from './parse.js';
import { resolveUserId } from './resolve-user.js';

const keyColumns: Column<ApiKey>[] = [
  { heading: 'ID', value: (k) => k.id },
  { heading: 'NAME', value: (k) => k.name },
  { heading: 'OWNER', value: (k) => k.owner_username },
  { heading: 'PREFIX', value: (k) => `${k.key_prefix}…` },
  { heading: 'ENABLED', value: (k) => (k.enabled ? 'yes' : 'no') },
  { heading: 'EXPIRES', value: (k) => showTime(k.expires_at, 'never') },
  { heading: 'LAST USED', value: (k) => showTime(k.last_used_at) },
  { heading: 'PERMISSIONS', value: (k) => showList(k.permissions) },
];

const permissionsHelp = "narrow the key to these permissions, comma-separated (default: the owner's live permissions)";

/** Adds `svc keys` and its subcommands to `program`. */
export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('Manage API keys (keys:create for your own, keys:manage for everyone\'s)');

  withConnectionOptions(keys.command('list'))
    .description("List your keys (with keys:manage: everyone's, or one owner's)")
    .option('--owner <user>', 'only this user\'s keys (username or id; needs keys:manage for others)')
    .action(async (options: ConnectionOptions & { owner?: string }) => {
      const context = createContext(options);
      const owner = options.owner === undefined ? undefined : await resolveUserId(context.client, options.owner);
      context.output.table(await context.client.keys.list(owner === undefined ? {} : { owner }), keyColumns);
    });

  withConnectionOptions(keys.command('create'))
    .description('Create an API key; its plaintext is printed this once')
    .requiredOption('--name <name>', 'a name to recognise the key by')
    .option('--description <text>', 'a description')
    .option('--owner <user>', 'create it for this user (username or id; needs keys:manage)')
    .option('--expires-at <time>', 'when it stops working (ISO 8601), or never', parseExpiry)
    .option('--permissions <list>', permissionsHelp, parsePermissionList)
    .action(async (options: ConnectionOptions & { name: string; description?: string; owner?: string; expiresAt?: string | null; permissions?: PermissionInput[] }) => {
      const context = createContext(options);
      const owner = options.owner === undefined ? undefined : await resolveUserId(context.client, options.owner);
      const created = await context.client.keys.create({
        name: options.name,
        ...definedFields({ description: options.description, owner, expires_at: options.expiresAt, permissions: options.permissions }),
      });
      if (context.output.json) return context.output.data(created);
      process.stdout.write(
        `Created API key ${created.name} (${created.id}) for ${created.owner_username}.\n` +
          'This is the only time the key is shown; store it now:\n' +
          `${created.key}\n`,
      );
    });

  withConnectionOptions(keys.command('update'))
    .description("Rename, describe, enable, disable, expire or narrow a key")
    .argument('<key-id>', 'the key\'s id (see svc keys list)')
    .option('--name <name>', 'a new name')
    .option('--description <text>', 'a new description')
    .addOption(new Option('--enable', 'enable the key').conflicts('disable'))
    .addOption(new Option('--disable', 'disable the key: it fails on its next use'))
    .option('--expires-at <time>', 'when it stops working (ISO 8601), or never', parseExpiry)
    .addOption(new Option('--permissions <list>', permissionsHelp).argParser(parsePermissionList).conflicts('inheritPermissions'))
    .option('--inherit-permissions', "drop the key's own permission list: it carries its owner's live permissions")
    .action(
      async (
        keyId: string,
        options: ConnectionOptions & { name?: string; description?: string; enable?: boolean; disable?: boolean; expiresAt?: string | null; permissions?: PermissionInput[]; inheritPermissions?: boolean },
      ) => {
        const changes: ApiKeyUpdate = {
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options.description === undefined ? {} : { description: options.description }),
          ...(options.enable === true ? { enabled: true } : {}),
          ...(options.disable === true ? { enabled: false } : {}),
          ...(options.expiresAt === undefined ? {} : { expires_at: options.expiresAt }),
          ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
          ...(options.inheritPermissions === true ? { permissions: null } : {}),
        };
        if (Object.keys(changes).length === 0) throw new CliError(ExitCode.usage, 'nothing to change: pass at least one option (see svc keys update --help)');
        const context = createContext(options);
        const updated = await context.client.keys.update(keyId, changes);
        context.output.done(`Updated API key ${updated.name} (${updated.id}): ${updated.enabled ? 'enabled' : 'disabled'}.`, updated);
      },
    );

  withConnectionOptions(keys.command('delete'))
    .description('Delete a key; it fails on its next use')
    .argument('<key-id>', 'the key\'s id')
    .action(async (keyId: string, options: ConnectionOptions) => {
      const context = createContext(options);
      await context.client.keys.delete(keyId);
      context.output.done(`Deleted API key ${keyId}.`, { id: keyId, deleted: true });
    });

  withConnectionOptions(keys.command('reveal'))
    .description("Print a key's plaintext (needs keys:manage; works only under the server's current encryption key)")
    .argument('<key-id>', 'the key\'s id')
    .action(async (keyId: string, options: ConnectionOptions) => {
      const context = createContext(options);
      const key = await context.client.keys.reveal(keyId);
      if (context.output.json) return context.output.data({ id: keyId, key });
      process.stdout.write(`${key}\n`);
    });
}
