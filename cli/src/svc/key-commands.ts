/**
 * `svc keys …`: create (the key is printed once), list, update, delete and reveal API keys, named by
 * id or by name. `keys:create` for one's own keys; `keys:manage` for everyone's, for reveal and for
 * changing a key's model restrictions.
 */
import type { ApiKey, ApiKeyUpdate, ModelPermission, PermissionInput } from '@svc/sdk';
import { Command, Option } from 'commander';
import { CliError, ExitCode } from '../exit-codes.js';
import { showList, showTime, type Column } from '../output.js';
import { createContext, withConnectionOptions, type ConnectionOptions } from './context.js';
import { definedFields } from './defined-fields.js';
import { parseExpiry, parseModelRestrictions, parsePermissionList, showModelRestrictions } from './parse.js';
import { resolveKeyId } from './resolve-key.js';
import { resolveUserId } from './resolve-user.js';

const keyColumns: Column<ApiKey>[] = [
  { heading: 'ID', value: (k) => k.id, keep: true },
  { heading: 'NAME', value: (k) => k.name },
  { heading: 'OWNER', value: (k) => k.owner_username },
  { heading: 'PREFIX', value: (k) => `${k.key_prefix}…` },
  { heading: 'ENABLED', value: (k) => (k.enabled ? 'yes' : 'no') },
  { heading: 'EXPIRES', value: (k) => showTime(k.expires_at, 'never') },
  { heading: 'LAST USED', value: (k) => showTime(k.last_used_at) },
  { heading: 'PERMISSIONS', value: (k) => showList(k.permissions) },
  { heading: 'MODELS', value: (k) => showModelRestrictions(k.model_permissions) },
];

const permissionsHelp = "narrow the key to these permissions, comma-separated (default: the owner's live permissions)";
const modelsHelp = 'the models the key may use: all, or model uids and type:<model type> entries, comma-separated (e.g. echo,type:embedding)';
const keyArgument = "the key's name (when no other key you can see has it) or id (see svc keys list)";

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
    .option('--models <list>', `${modelsHelp} (default: all)`, parseModelRestrictions)
    .action(async (options: ConnectionOptions & { name: string; description?: string; owner?: string; expiresAt?: string | null; permissions?: PermissionInput[]; models?: ModelPermission[] }) => {
      if (options.models?.length === 0) {
        throw new CliError(ExitCode.usage, '--models none: a new key starts with at least one model (an empty list means every model when a key is created); create it, then: svc keys update <key> --models none');
      }
      const context = createContext(options);
      const owner = options.owner === undefined ? undefined : await resolveUserId(context.client, options.owner);
      const created = await context.client.keys.create({
        name: options.name,
        ...definedFields({ description: options.description, owner, expires_at: options.expiresAt, permissions: options.permissions, model_permissions: options.models }),
      });
      if (context.output.json) return context.output.data(created);
      process.stdout.write(
        `Created API key ${created.name} (${created.id}) for ${created.owner_username}.\n` +
          'This is the only time the key is shown; store it now:\n' +
          `${created.key}\n`,
      );
    });

  withConnectionOptions(keys.command('update'))
    .description('Rename, describe, enable, disable, expire or narrow a key, or restrict its models')
    .argument('<key>', keyArgument)
    .option('--name <name>', 'a new name')
    .option('--description <text>', 'a new description')
    .addOption(new Option('--enable', 'enable the key').conflicts('disable'))
    .addOption(new Option('--disable', 'disable the key: it fails on its next use'))
    .option('--expires-at <time>', 'when it stops working (ISO 8601), or never', parseExpiry)
    .addOption(new Option('--permissions <list>', permissionsHelp).argParser(parsePermissionList).conflicts('inheritPermissions'))
    .option('--inherit-permissions', "drop the key's own permission list: it carries its owner's live permissions")
    .option('--models <list>', `${modelsHelp}, or none (needs keys:manage)`, parseModelRestrictions)
    .action(
      async (
        key: string,
        options: ConnectionOptions & {
          name?: string;
          description?: string;
          enable?: boolean;
          disable?: boolean;
          expiresAt?: string | null;
          permissions?: PermissionInput[];
          inheritPermissions?: boolean;
          models?: ModelPermission[];
        },
      ) => {
        const changes: ApiKeyUpdate = {
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options.description === undefined ? {} : { description: options.description }),
          ...(options.enable === true ? { enabled: true } : {}),
          ...(options.disable === true ? { enabled: false } : {}),
          ...(options.expiresAt === undefined ? {} : { expires_at: options.expiresAt }),
          ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
          ...(options.inheritPermissions === true ? { permissions: null } : {}),
          ...(options.models === undefined ? {} : { model_permissions: options.models }),
        };
        if (Object.keys(changes).length === 0) throw new CliError(ExitCode.usage, 'nothing to change: pass at least one option (see svc keys update --help)');
        const context = createContext(options);
        const updated = await context.client.keys.update(await resolveKeyId(context.client, key), changes);
        context.output.done(
          `Updated API key ${updated.name} (${updated.id}): ${updated.enabled ? 'enabled' : 'disabled'}, permissions: ${showList(updated.permissions)}, models: ${showModelRestrictions(updated.model_permissions)}.`,
          updated,
        );
      },
    );

  withConnectionOptions(keys.command('delete'))
    .description('Delete a key; it fails on its next use')
    .argument('<key>', keyArgument)
    .action(async (key: string, options: ConnectionOptions) => {
      const context = createContext(options);
      const keyId = await resolveKeyId(context.client, key);
      await context.client.keys.delete(keyId);
      context.output.done(`Deleted API key ${key === keyId ? keyId : `${key} (${keyId})`}.`, { id: keyId, deleted: true });
    });

  withConnectionOptions(keys.command('reveal'))
    .description("Print a key's plaintext (needs keys:manage; works only under the server's current encryption key)")
    .argument('<key>', keyArgument)
    .action(async (key: string, options: ConnectionOptions) => {
      const context = createContext(options);
      const keyId = await resolveKeyId(context.client, key);
      const plaintext = await context.client.keys.reveal(keyId);
      if (context.output.json) return context.output.data({ id: keyId, key: plaintext });
      process.stdout.write(`${plaintext}\n`);
    });
}
