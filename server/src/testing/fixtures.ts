/**
 * Test fixtures over HTTP: the first admin, users with chosen permissions, logins and keys.
 */
import { randomBytes } from 'node:crypto';
import type { Permission, PermissionInput } from '../auth/permissions.js';
import type { components } from '../generated/openapi.js';
import type { ContractClient } from './test-server.js';

type Schemas = components['schemas'];

/** The first admin's username and password in every fixture. */
export const adminCredentials = { username: 'admin', password: 'correct horse battery staple' } as const;

/** A logged-in user. */
export interface LoggedInUser {
  id: string;
  username: string;
  password: string;
  accessToken: string;
  refreshToken: string;
}

function expectStatus(response: { status: number; text: string }, status: number, what: string): void {
  if (response.status !== status) throw new Error(`${what}: expected ${status}, got ${response.status}: ${response.text}`);
}

/** Logs in and returns the token pair. */
export async function login(client: ContractClient, username: string, password: string): Promise<Schemas['TokenPair']> {
  const response = await client.request('POST', '/v1/auth/login', { body: { username, password } });
  expectStatus(response, 200, `login as ${username}`);
  return response.body;
}

/** Runs first-run setup and logs the admin in. */
export async function setupAdmin(client: ContractClient): Promise<LoggedInUser> {
  const created = await client.request('POST', '/v1/admin/setup', { body: adminCredentials });
  expectStatus(created, 201, 'setup');
  const tokens = await login(client, adminCredentials.username, adminCredentials.password);
  return { id: created.body.id, ...adminCredentials, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
}

/** A username nobody has used yet. */
export function uniqueUsername(stem = 'user'): string {
  return `${stem}-${randomBytes(4).toString('hex')}`;
}

/** Creates a user holding `permissions` (as `creatorToken`) and logs them in. */
export async function createUser(
  client: ContractClient,
  creatorToken: string,
  permissions: readonly (Permission | PermissionInput)[],
  username = uniqueUsername(),
): Promise<LoggedInUser> {
  const password = `a long passphrase for ${username}`;
  const created = await client.request('POST', '/v1/admin/users', { token: creatorToken, body: { username, password, permissions } });
  expectStatus(created, 201, `create user ${username}`);
  const tokens = await login(client, username, password);
  return { id: created.body.id, username, password, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
}

/** Creates an API key (as `token`) and returns the creation answer, plaintext included. */
export async function createKey(
  client: ContractClient,
  token: string,
  body: Schemas['ApiKeyCreate'] = { name: 'test key' },
): Promise<Schemas['ApiKeyCreated']> {
  const created = await client.request('POST', '/v1/admin/keys', { token, body });
  expectStatus(created, 201, 'create key');
  return created.body;
}
