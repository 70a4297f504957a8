/**
 * Two `svc-local` processes sharing one SVC_HOME (and so one database), started at the same moment
 * on an empty home: they agree on one pair of secrets (the generated secret files of SQLite are
 * checked in `two-processes-secret-files.test.ts`), and every grant, revocation, deletion and disable made
 * through one process applies to the very next request served by the other (requirements 28, 30,
 * 41 and the distributed-deployment rule of the design brief).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  assertError,
  contractClient,
  createKey,
  createUser,
  login,
  setupAdmin,
  startServerProcess,
  type ContractClient,
  type LoggedInUser,
  type ServerProcess,
} from '@svc/server/testing';

describe('two processes on one SVC_HOME', () => {
  let home: string;
  const processes: ServerProcess[] = [];
  let a: ContractClient;
  let b: ContractClient;
  let admin: LoggedInUser;

  beforeAll(async () => {
    // mkdtemp gives an empty directory: no database, no secrets yet.
    home = await mkdtemp(join(tmpdir(), 'svc-two-processes-'));
    const started = await Promise.allSettled([startServerProcess({ SVC_HOME: home }), startServerProcess({ SVC_HOME: home })]);
    for (const outcome of started) if (outcome.status === 'fulfilled') processes.push(outcome.value);
    for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
    a = contractClient(processes[0]!.baseUrl);
    b = contractClient(processes[1]!.baseUrl);
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  it('accepts on each process the tokens the other one issued', async () => {
    admin = await setupAdmin(a);
    const meOnB = await b.request('GET', '/v1/auth/me', { token: admin.accessToken });
    assert.equal(meOnB.status, 200);
    assert.equal(meOnB.body.id, admin.id);
    const tokensFromB = await login(b, admin.username, admin.password);
    const meOnA = await a.request('GET', '/v1/auth/me', { token: tokensFromB.access_token });
    assert.equal(meOnA.status, 200);
    assert.equal(meOnA.body.id, admin.id);
    // A refresh token issued by A rotates on B.
    const refreshed = await b.request('POST', '/v1/auth/refresh', { body: { refresh_token: admin.refreshToken } });
    assert.equal(refreshed.status, 200);
  });

  it('applies grants, revocations, key deletion and disabling made on one process to the next request on the other', async () => {
    const user = await createUser(a, admin.accessToken, ['keys:create', 'models:list']);
    const key = await createKey(a, user.accessToken, { name: 'two-process key' });

    // B serves the user's token and key (and so caches them).
    const meByToken = await b.request('GET', '/v1/auth/me', { token: user.accessToken });
    assert.equal(meByToken.status, 200);
    assert.deepEqual(meByToken.body.permissions, ['models:list', 'keys:create']);
    const meByKey = await b.request('GET', '/v1/auth/me', { token: key.key });
    assert.equal(meByKey.status, 200);
    assert.equal(meByKey.body.auth_type, 'api_key');
    assert.equal(meByKey.body.api_key.id, key.id);
    assert.equal((await b.request('GET', '/v1/admin/keys', { token: user.accessToken })).status, 200);
    assert.equal((await b.request('GET', '/v1/admin/keys', { token: key.key })).status, 200);

    // Revoke keys:create through A: B refuses the next request that needs it, by token and by key.
    const revoked = await a.request('PUT', `/v1/admin/users/${user.id}/permissions`, { token: admin.accessToken, body: { permissions: ['models:list'] } });
    assert.equal(revoked.status, 200);
    for (const credential of [user.accessToken, key.key]) {
      const refused = await b.request('GET', '/v1/admin/keys', { token: credential });
      assertError(refused, 403, 'permission_denied');
    }
    // The key still authenticates (it only lost a permission) until it is deleted.
    assert.equal((await b.request('GET', '/v1/auth/me', { token: key.key })).status, 200);

    // Delete the key through A: B refuses it on the next request.
    const deleted = await a.request('DELETE', `/v1/admin/keys/${key.id}`, { token: admin.accessToken });
    assert.equal(deleted.status, 204);
    const keyRefused = await b.request('GET', '/v1/auth/me', { token: key.key });
    assertError(keyRefused, 401, 'invalid_api_key');

    // A serves the user's token (and caches it); disable the user through B: A refuses the token.
    assert.equal((await a.request('GET', '/v1/auth/me', { token: user.accessToken })).status, 200);
    const disabled = await b.request('PUT', `/v1/admin/users/${user.id}`, { token: admin.accessToken, body: { enabled: false } });
    assert.equal(disabled.status, 200);
    assert.equal(disabled.body.enabled, false);
    const tokenRefused = await a.request('GET', '/v1/auth/me', { token: user.accessToken });
    assert.equal(tokenRefused.status, 401);
    assert.ok(['invalid_token', 'account_disabled'].includes(tokenRefused.body.error.code), tokenRefused.text);
    // Nor can the user log in again on either process, or refresh the session.
    for (const client of [a, b]) {
      const relogin = await client.request('POST', '/v1/auth/login', { body: { username: user.username, password: user.password } });
      assert.equal(relogin.status, 401);
    }
    const refresh = await a.request('POST', '/v1/auth/refresh', { body: { refresh_token: user.refreshToken } });
    assert.equal(refresh.status, 401);
  });

  it('a model launched, stopped or relaunched through one process is served (or not) by the other on its very next request', async () => {
    const chat = { model: 'shared-model', messages: [{ role: 'user', content: 'ping' }] };
    const launched = await a.request('POST', '/v1/models', { token: admin.accessToken, body: { model_uid: 'shared-model', model_name: 'echo' } });
    assert.equal(launched.status, 200, launched.text);
    assert.equal((await b.request('POST', '/v1/chat/completions', { token: admin.accessToken, body: chat })).status, 200);
    assert.equal((await a.request('DELETE', '/v1/models/shared-model', { token: admin.accessToken })).status, 200);
    assertError(await b.request('POST', '/v1/chat/completions', { token: admin.accessToken, body: chat }), 404, 'model_not_found');
    await b.request('POST', '/v1/models', { token: admin.accessToken, body: { model_uid: 'shared-model', model_name: 'echo-system-first' } });
    const strict = await a.request('POST', '/v1/chat/completions', { token: admin.accessToken, body: { ...chat, messages: [...chat.messages, { role: 'system', content: 'late' }] } });
    assertError(strict, 400, 'system_message_not_first');
    assertError(await a.request('POST', '/v1/models', { token: admin.accessToken, body: { model_uid: 'shared-model', model_name: 'echo' } }), 409, 'model_uid_taken');
  });
});
