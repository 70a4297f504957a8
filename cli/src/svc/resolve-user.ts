/**
 * Commands name users by username or by id. This finds the user's id: an id is used as given; a
 * name is looked up in the user list (`users:manage`), or, for a `keys:manage` holder who may not list
 * users, among the owners of the keys they can see.
 */
import { PermissionDeniedError, type Client } from '@svc/sdk';
import { CliError, ExitCode } from '../exit-codes.js';

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The id of the user named `nameOrId`. */
export async function resolveUserId(client: Client, nameOrId: string): Promise<string> {
  if (ID.test(nameOrId)) return nameOrId;
  const wanted = nameOrId.toLowerCase();
  try {
    const user = (await client.users.list()).find((candidate) => candidate.username.toLowerCase() === wanted);
    if (user !== undefined) return user.id;
  } catch (error) {
    if (!(error instanceof PermissionDeniedError)) throw error;
    const key = (await client.keys.list()).find((candidate) => candidate.owner_username.toLowerCase() === wanted);
    if (key !== undefined) return key.user_id;
  }
  throw new CliError(ExitCode.notFoundOrConflict, `no user named ${JSON.stringify(nameOrId)}`);
}
