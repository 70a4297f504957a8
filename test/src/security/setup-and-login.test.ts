/**
 * Security requirements 7 and 8: no default account, setup exactly once, and login failures that
 * do not tell an attacker which part was wrong. (Requirements 9–11, brute-force protection, come
 * with their own issue.)
 */
import assert from 'node:assert/strict';
import { beforeAll, describe, it } from 'vitest';
import { adminCredentials, assertError, createUser, login, useServerWithAdmin, withTestServer, type LoggedInUser, type TestResponse } from '@svc/server/testing';
import { countUsers } from './support.js';

describe('security: setup (R7)', () => {
  it('R7: a fresh database has zero users and no default account logs in', async () => {
    await withTestServer(async (server) => {
      assert.equal(await countUsers(server.home), 0);
      const status = await server.request('GET', '/v1/admin/setup/status');
      assert.equal(status.body.needs_setup, true);
      assert.equal(status.body.initialized, false);
      // The usual defaults of other products do not exist here.
      for (const [username, password] of [
        ['admin', 'admin'],
        ['admin', 'password'],
        ['admin', adminCredentials.password],
        ['root', 'root'],
        ['svc', 'svc'],
      ] as const) {
        const response = await server.request('POST', '/v1/auth/login', { body: { username, password } });
        assertError(response, 401, 'invalid_credentials', `${username}/${password}`);
      }
      // Nothing but setup is reachable without an account: a protected route needs credentials.
      assert.equal((await server.request('GET', '/v1/admin/users')).status, 401);
      assert.equal(await countUsers(server.home), 0, 'a login attempt created an account');
    });
  });

  it('R7: setup succeeds once; every later setup is refused and creates nothing', async () => {
    await withTestServer(async (server) => {
      const first = await server.request('POST', '/v1/admin/setup', { body: adminCredentials });
      assert.equal(first.status, 201);
      assert.deepEqual(first.body.permissions, ['admin']);
      for (const body of [adminCredentials, { username: 'intruder', password: 'an intruder passphrase' }]) {
        const again = await server.request('POST', '/v1/admin/setup', { body });
        assertError(again, 403, 'setup_already_completed');
      }
      assert.equal(await countUsers(server.home), 1);
      assert.equal((await server.request('POST', '/v1/auth/login', { body: { username: 'intruder', password: 'an intruder passphrase' } })).status, 401);
      await login(server, adminCredentials.username, adminCredentials.password);
    });
  });

  it('R7: concurrent setups create exactly one admin', async () => {
    await withTestServer(async (server) => {
      const attempts = Array.from({ length: 12 }, (_, i) =>
        server.request('POST', '/v1/admin/setup', { body: { username: `racer${i}`, password: `racing passphrase number ${i}` } }),
      );
      const responses = await Promise.all(attempts);
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, 1, `statuses: ${statuses.join(',')}`);
      assert.equal(statuses.filter((s) => s === 403).length, attempts.length - 1, `statuses: ${statuses.join(',')}`);
      for (const refused of responses.filter((r) => r.status === 403)) assert.equal(refused.body.error.code, 'setup_already_completed');
      assert.equal(await countUsers(server.home), 1);
      const winner = responses.find((r) => r.status === 201) as TestResponse;
      const index = Number(String(winner.body.username).replace('racer', ''));
      await login(server, winner.body.username as string, `racing passphrase number ${index}`);
    });
  });
});

describe('security: login failures (R8)', () => {
  const ctx = useServerWithAdmin();
  let disabled: LoggedInUser;
  let active: LoggedInUser;

  beforeAll(async () => {
    active = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    disabled = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    const off = await ctx.server.request('PUT', `/v1/admin/users/${disabled.id}`, { token: ctx.admin.accessToken, body: { enabled: false } });
    assert.equal(off.status, 200);
  });

  // Timing is part of R8 too: the server verifies a dummy argon2id hash when the user does not exist
  // (server/src/crypto/passwords.ts, verifyPassword(null, …)) and checks `enabled` only after the
  // hash comparison. Timing is measured by the benchmarks, never asserted in tests.

  /** What an attacker can see of a failed login: status, the relevant headers and the body text. */
  const observe = async (path: string, username: string, password: string) => {
    const response = await ctx.server.request('POST', path, { body: { username, password } });
    return {
      status: response.status,
      wwwAuthenticate: response.headers.get('www-authenticate'),
      contentType: response.headers.get('content-type'),
      body: response.text,
    };
  };

  for (const path of ['/v1/auth/login', '/token']) {
    it(`R8: unknown user, wrong password and disabled account give the same status and body (${path})`, async () => {
      const unknown = await observe(path, 'nobody-by-this-name', 'whatever passphrase here');
      const wrongPassword = await observe(path, active.username, 'not the right passphrase');
      const disabledRightPassword = await observe(path, disabled.username, disabled.password);
      const disabledWrongPassword = await observe(path, disabled.username, 'not the right passphrase');
      assert.equal(unknown.status, 401);
      assert.deepEqual(JSON.parse(unknown.body).error.code, 'invalid_credentials');
      assert.match(unknown.wwwAuthenticate ?? '', /^Bearer/);
      for (const other of [wrongPassword, disabledRightPassword, disabledWrongPassword]) assert.deepEqual(other, unknown);
      // Unknown-user checks are not case tricks either: another case of an existing name with a wrong password looks the same.
      assert.deepEqual(await observe(path, active.username.toUpperCase(), 'not the right passphrase'), unknown);
      // The right password of an active account still works, so the refusals above are real.
      assert.equal((await ctx.server.request('POST', path, { body: { username: active.username, password: active.password } })).status, 200);
    });
  }
});
