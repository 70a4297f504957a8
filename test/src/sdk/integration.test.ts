/**
 * The SDK against the real server (in-process, port 0, a real SQLite file): setup, login and
 * refresh, every resource, the error classes and codes, API keys and the environment defaults.
 * Requests are observed through an injected `fetch` that only records what passes through.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, it } from 'vitest';
import {
  APIError,
  AuthenticationError,
  BadRequestError,
  Client,
  ConflictError,
  MemoryTokenStore,
  NotFoundError,
  PermissionDeniedError,
  type ClientOptions,
  type ErrorCode,
} from '@svc/sdk';
import { adminCredentials, pollUntil, uniqueUsername, useServer, withTestServer } from '@svc/server/testing';
import { decodeJwt, forgeJwt, jwtSecret } from '../security/support.js';

/** One request the SDK sent, and the status it got. */
interface Sent {
  method: string;
  path: string;
  status: number;
}

/** A `fetch` that passes every request to the real one and records it. */
function recordingFetch(): { fetch: typeof fetch; sent: Sent[]; count(method: string, path: string): number } {
  const sent: Sent[] = [];
  return {
    sent,
    async fetch(input, init) {
      const request = new Request(input, init);
      const response = await globalThis.fetch(request);
      sent.push({ method: request.method, path: new URL(request.url).pathname, status: response.status });
      return response;
    },
    count: (method, path) => sent.filter((request) => request.method === method && request.path === path).length,
  };
}

/** Asserts that `promise` rejects with an instance of `Class` carrying `status` and `code`. */
async function assertApiError(promise: Promise<unknown>, Class: new (...args: never[]) => APIError, status: number, code: ErrorCode): Promise<APIError> {
  let caught: unknown;
  await assert.rejects(promise, (error: unknown) => {
    caught = error;
    return true;
  });
  assert.ok(caught instanceof Class, `expected ${Class.name}, got ${String(caught)}`);
  assert.ok(caught instanceof APIError);
  assert.equal(caught.status, status);
  assert.equal(caught.code, code);
  assert.equal(typeof caught.requestId, 'string', 'the server’s X-Request-Id is on the error');
  assert.equal(caught.message, (caught.body as { detail: string }).detail, 'the message is the server’s');
  return caught;
}

const longPassword = (who: string) => `a long passphrase for ${who}`;

describe('SDK: first-run setup', () => {
  it('reports that setup is needed, creates the first admin once, then refuses with setup_already_completed', async () => {
    await withTestServer(async (server) => {
      const client = new Client({ baseUrl: server.baseUrl });
      assert.equal((await client.health.status()).status, 'ok');
      assert.deepEqual(await client.health.ready(), { status: 'ready' });
      assert.deepEqual(await client.health.authEnabled(), { auth: true });
      assert.equal((await client.setup.status()).needs_setup, true);
      const admin = await client.setup.createAdmin(adminCredentials);
      assert.equal(admin.username, 'admin');
      assert.deepEqual(admin.permissions, ['admin']);
      assert.equal((await client.setup.status()).needs_setup, false);
      await assertApiError(client.setup.createAdmin({ username: 'second', password: longPassword('second') }), PermissionDeniedError, 403, 'setup_already_completed');
      const pair = await client.login(adminCredentials.username, adminCredentials.password);
      assert.equal(pair.token_type, 'bearer');
      assert.equal((await client.auth.me()).id, admin.id);
    });
  });
});

describe('SDK against the real server', () => {
  const ctx = useServer();
  let baseUrl: string;
  let admin: Client;

  beforeAll(async () => {
    baseUrl = ctx.server.baseUrl;
    admin = new Client({ baseUrl });
    await admin.setup.createAdmin(adminCredentials);
    await admin.login(adminCredentials.username, adminCredentials.password);
  });

  /** A new user holding `permissions`, and a client logged in as them. */
  async function userClient(permissions: Parameters<Client['users']['create']>[0]['permissions'], options: ClientOptions = {}) {
    const username = uniqueUsername();
    const user = await admin.users.create({ username, password: longPassword(username), ...(permissions === undefined ? {} : { permissions }) });
    const client = new Client({ baseUrl, ...options });
    await client.login(username, longPassword(username));
    return { user, client };
  }

  it('logs in and answers who is calling', async () => {
    const me = await admin.auth.me();
    assert.equal(me.username, 'admin');
    assert.equal(me.auth_type, 'jwt');
    assert.deepEqual(me.permissions, ['admin']);
  });

  it('creates, lists, reads, updates, re-permissions, re-passwords and deletes users', async () => {
    const username = uniqueUsername('crud');
    const created = await admin.users.create({ username, password: longPassword(username), permissions: ['models:list', 'keys:create'] });
    assert.equal(created.username, username);
    assert.deepEqual([...created.permissions].sort(), ['keys:create', 'models:list']);
    assert.ok((await admin.users.list()).some((user) => user.id === created.id));
    assert.equal((await admin.users.get(created.id)).username, username);

    assert.deepEqual(await admin.users.setPermissions(created.id, ['models:read']), ['models:read']);
    assert.deepEqual(await admin.users.getPermissions(created.id), ['models:read']);

    const newPassword = 'another long passphrase entirely';
    await admin.users.setPassword(created.id, { new_password: newPassword });
    const asUser = new Client({ baseUrl });
    await assertApiError(asUser.login(username, longPassword(username)), AuthenticationError, 401, 'invalid_credentials');
    await asUser.login(username, newPassword);
    assert.equal((await asUser.auth.me()).username, username);

    assert.equal((await admin.users.update(created.id, { enabled: false })).enabled, false);
    await assertApiError(new Client({ baseUrl }).login(username, newPassword), AuthenticationError, 401, 'invalid_credentials');

    await admin.users.delete(created.id);
    await assertApiError(admin.users.get(created.id), NotFoundError, 404, 'user_not_found');
  });

  it('creates, lists, reads, updates, reveals, restricts and deletes API keys', async () => {
    const created = await admin.keys.create({ name: 'integration' });
    assert.match(created.key, /^sk-svc-/);
    assert.ok((await admin.keys.list()).some((key) => key.id === created.id));
    const me = await admin.auth.me();
    assert.ok((await admin.keys.list({ owner: me.id })).some((key) => key.id === created.id));
    assert.equal((await admin.keys.get(created.id)).name, 'integration');
    assert.equal((await admin.keys.update(created.id, { name: 'renamed', description: 'for the SDK test' })).name, 'renamed');
    assert.equal(await admin.keys.reveal(created.id), created.key);

    assert.deepEqual(await admin.keys.getModelPermissions(created.id), [{ permission_type: 'all', permission_value: null }]);
    const restrictions = [
      { permission_type: 'model_id', permission_value: 'qwen-chat' },
      { permission_type: 'model_type', permission_value: 'embedding' },
    ] as const;
    assert.deepEqual(await admin.keys.setModelPermissions(created.id, [...restrictions]), restrictions);
    assert.deepEqual(await admin.keys.getModelPermissions(created.id), restrictions);
    assert.deepEqual(await admin.keys.setModelPermissions(created.id, []), []);

    await admin.keys.delete(created.id);
    await assertApiError(admin.keys.get(created.id), NotFoundError, 404, 'api_key_not_found');
    await assertApiError(new Client({ baseUrl, apiKey: created.key }).auth.me(), AuthenticationError, 401, 'invalid_api_key');
  });

  it('throws the error class and code of each status: 400, 401, 403, 404, 409', async () => {
    await assertApiError(admin.users.create({ username: uniqueUsername(), password: 'short' }), BadRequestError, 400, 'password_too_short');
    await assertApiError(new Client({ baseUrl }).login('admin', 'not the admin password at all'), AuthenticationError, 401, 'invalid_credentials');
    await assertApiError(new Client({ baseUrl }).users.list(), AuthenticationError, 401, 'missing_credentials');
    const { client: limited } = await userClient(['models:list']);
    await assertApiError(limited.users.list(), PermissionDeniedError, 403, 'permission_denied');
    await assertApiError(admin.users.get(randomUUID()), NotFoundError, 404, 'user_not_found');
    await assertApiError(admin.users.create({ username: 'admin', password: longPassword('admin') }), ConflictError, 409, 'username_taken');
    const error = await assertApiError(admin.users.create({ username: 'bad name!', password: longPassword('x') }), BadRequestError, 400, 'invalid_request');
    assert.equal(error.param, 'username');
  });

  it('authenticates with an API key, given as a string or as a function', async () => {
    const created = await admin.keys.create({ name: 'key client' });
    const withString = new Client({ baseUrl, apiKey: created.key });
    const me = await withString.auth.me();
    assert.equal(me.auth_type, 'api_key');
    assert.equal(me.api_key?.id, created.id);
    const withFunction = new Client({ baseUrl, apiKey: async () => created.key });
    assert.equal((await withFunction.keys.get(created.id)).id, created.id);

    await admin.keys.update(created.id, { enabled: false });
    await assertApiError(withString.auth.me(), AuthenticationError, 401, 'api_key_disabled');
  });

  it('reads SVC_ENDPOINT and SVC_API_KEY when no options are given', async () => {
    const created = await admin.keys.create({ name: 'environment' });
    const saved = { endpoint: process.env['SVC_ENDPOINT'], key: process.env['SVC_API_KEY'] };
    try {
      process.env['SVC_ENDPOINT'] = baseUrl;
      process.env['SVC_API_KEY'] = created.key;
      const client = new Client();
      assert.equal(client.baseUrl, baseUrl);
      assert.equal((await client.auth.me()).api_key?.id, created.id);
      assert.equal(client.openaiBaseUrl, `${baseUrl}/v1`);
    } finally {
      for (const [name, value] of [['SVC_ENDPOINT', saved.endpoint], ['SVC_API_KEY', saved.key]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('refreshes once and replays the call when the server answers token_expired', async () => {
    const store = new MemoryTokenStore();
    const recorder = recordingFetch();
    const { user, client } = await userClient(['models:list'], { tokenStore: store, fetch: recorder.fetch });
    const session = store.get();
    assert.ok(session !== null);
    // An access token the server considers expired (past its 30-second clock tolerance), signed with
    // its real secret, that the SDK still believes fresh: only the server's answer can trigger the refresh.
    const { header, payload } = decodeJwt(session.accessToken);
    const now = Math.floor(Date.now() / 1000);
    const expired = forgeJwt(header, { ...payload, jti: randomUUID(), iat: now - 3600, exp: now - 1800 }, await jwtSecret(ctx.server.home));
    store.set({ ...session, accessToken: expired, accessTokenExpiresAt: Date.now() + 3_600_000 });
    recorder.sent.length = 0;

    assert.equal((await client.auth.me()).id, user.id);
    assert.deepEqual(
      recorder.sent.map(({ method, path, status }) => `${method} ${path} ${status}`),
      ['GET /v1/auth/me 401', 'POST /v1/auth/refresh 200', 'GET /v1/auth/me 200'],
    );
    assert.notEqual(store.get()?.accessToken, expired);
    assert.notEqual(store.get()?.refreshToken, session.refreshToken, 'the refresh token was rotated');
  });

  it('clears the session when the refresh fails, and later calls fail with AuthenticationError', async () => {
    const store = new MemoryTokenStore();
    const { client } = await userClient(['models:list'], { tokenStore: store });
    const session = store.get();
    assert.ok(session !== null);
    const revoked = await fetch(`${baseUrl}/v1/auth/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: session.refreshToken }),
    });
    assert.equal(revoked.status, 200);
    store.set({ ...session, accessTokenExpiresAt: Date.now() - 1000 });

    await assertApiError(client.auth.me(), AuthenticationError, 401, 'invalid_refresh_token');
    assert.equal(store.get(), null, 'the failed refresh cleared the session');
    await assertApiError(client.auth.me(), AuthenticationError, 401, 'missing_credentials');
  });

  it('logs out: the refresh token is revoked and later calls fail with AuthenticationError', async () => {
    const store = new MemoryTokenStore();
    const { client } = await userClient(['models:list'], { tokenStore: store });
    const refreshToken = store.get()?.refreshToken;
    assert.equal(typeof refreshToken, 'string');
    await client.logout();
    assert.equal(store.get(), null);
    await assertApiError(client.auth.me(), AuthenticationError, 401, 'missing_credentials');
    const replay = await fetch(`${baseUrl}/v1/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: refreshToken }),
    });
    assert.equal(replay.status, 401);
    await replay.arrayBuffer();
  });

  it('keeps working after changePassword with the fresh pair it gets back', async () => {
    const store = new MemoryTokenStore();
    const { user, client } = await userClient(['models:list'], { tokenStore: store });
    const before = store.get();
    await client.auth.changePassword({ current_password: longPassword(user.username), new_password: 'a brand new long passphrase' });
    assert.notEqual(store.get()?.accessToken, before?.accessToken);
    assert.equal((await client.auth.me()).id, user.id);
  });
});

describe('SDK: one refresh for concurrent calls (access tokens live 1 second)', () => {
  const ctx = useServer({ config: { accessTokenTtlSeconds: 1 } });

  it('sends exactly one refresh request for 100 concurrent calls made after the access token expired', async () => {
    const baseUrl = ctx.server.baseUrl;
    await new Client({ baseUrl }).setup.createAdmin(adminCredentials);
    const store = new MemoryTokenStore();
    const recorder = recordingFetch();
    const client = new Client({ baseUrl, tokenStore: store, fetch: recorder.fetch });
    const pair = await client.login(adminCredentials.username, adminCredentials.password);
    assert.equal(pair.expires_in, 1);
    const expiresAt = store.get()?.accessTokenExpiresAt ?? 0;
    const waited = await pollUntil(async () => Date.now(), (now) => now > expiresAt + 100, { timeoutMs: 5000, intervalMs: 100 });
    assert.ok((waited.at(-1) as number) > expiresAt, 'the access token expired before the calls');

    const answers = await Promise.all(Array.from({ length: 100 }, () => client.auth.me()));
    assert.ok(answers.every((me) => me.username === 'admin'));
    assert.equal(recorder.count('POST', '/v1/auth/refresh'), 1);
    assert.equal(recorder.count('GET', '/v1/auth/me'), 100, 'no call was replayed');
  });
});

