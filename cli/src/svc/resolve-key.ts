/**
 * Commands name API keys by id or by name. This finds the key's id: an id is used as given; a name
 * is looked up among the keys the caller can list (their own, or with `keys:manage` everyone's),
 * and must name exactly one of them.
 */
import type { Client } from '@svc/sdk';
import { CliError, ExitCode } from '../exit-codes.js';

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The id of the key `nameOrId`: exit 4 when no visible key has that name, exit 1 when several do
 * (the line lists their ids and owners, to pick one by id).
 */
export async function resolveKeyId(client: Client, nameOrId: string): Promise<string> {
  if (ID.test(nameOrId)) return nameOrId;
  const named = (await client.keys.list()).filter((key) => key.name === nameOrId);
  const [only] = named;
  if (named.length === 1 && only !== undefined) return only.id;
  if (named.length === 0) throw new CliError(ExitCode.notFoundOrConflict, `no API key named ${JSON.stringify(nameOrId)} (see svc keys list)`);
  const which = named.map((key) => `${key.id} (${key.owner_username})`).join(', ');
  throw new CliError(ExitCode.usage, `${named.length} API keys are named ${JSON.stringify(nameOrId)}: ${which}; give the id`);
}
