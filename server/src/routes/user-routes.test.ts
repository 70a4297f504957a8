import assert from 'node:assert/strict';
import { beforeAll, describe, it } from 'vitest';
import {
  adminCredentials,
  assertError,
  assertLegacyDeprecation,
  createKey,
  createUser,
  login,
  setupAdmin,
  uniqueUsername,
  useServer,
  useServerWithAdmin,
  type LoggedInUser,
} from '../testing/index.js';

/** Permission lists compared as sets: the order of a stored list is not part of the contract. */
const sorted = (permissions: readonly string[]) => [...permissions].sort();

describe('POST /v1/admin/users', () => {
  const ctx = useServerWithAdmin();
  let manager: LoggedInUser;
  beforeAll(async () => {
    manager = await createUser(ctx.server, ctx.admin.accessToken, ['users:manage']);
  });

  it('creates a user (201) who can then log in', async () => {
    const username = uniqueUsername('alice');
    const password = 'alice has a long passphrase';
    const response = await ctx.server.request('POST', '/v1/admin/users', {
      token: ctx.admin.accessToken,
      body: { username, password, permissions: ['models:read', 'keys:create', 'models:list'] },
    });
    assert.equal(response.status, 201);
    assert.equal(response.body.username, username);
    assert.equal(response.body.source, 'local');
    assert.equal(response.body.enabled, true);
    assert.equal(response.body.must_change_password, false);
    assert.deepEqual(sorted(response.body.permissions), ['keys:create', 'models:list', 'models:read']);
    assert.equal(response.headers.get('deprecation'), null);
    const tokens = await login(ctx.server, username, password);
    const me = await ctx.server.request('GET', '/v1/auth/me', { token: tokens.access_token });
    assert.equal(me.body.id, response.body.id);
  });

  it('creates a user with no permissions when none are given', async () => {
    const response = await ctx.server.request('POST', '/v1/admin/users', {
      token: ctx.admin.accessToken,
      body: { username: uniqueUsername(), password: 'a user who may do nothing' },
    });
    assert.equal(response.status, 201);
    assert.deepEqual(response.body.permissions, []);
  });

  it('refuses a username already taken, whatever its case, with 409 username_taken', async () => {
    const username = uniqueUsername('Bob');
    await createUser(ctx.server, ctx.admin.accessToken, [], username);
    for (const taken of [username, username.toUpperCase(), username.toLowerCase()]) {
      const response = await ctx.server.request('POST', '/v1/admin/users', {
        token: ctx.admin.accessToken,
        body: { username: taken, password: 'another long passphrase' },
      });
      assertError(response, 409, 'username_taken');
    }
    assert.equal((await ctx.server.request('POST', '/v1/admin/users', { token: ctx.admin.accessToken, body: { username: 'ADMIN', password: 'another long passphrase' } })).status, 409);
  });

  it('creates exactly one account when the same name is asked for concurrently', async () => {
    const username = uniqueUsername('race');
    const answers = await Promise.all(
      ['first', 'second', 'third'].map((which) =>
        ctx.server.request('POST', '/v1/admin/users', { token: ctx.admin.accessToken, body: { username, password: `the ${which} racing passphrase` } }),
      ),
    );
    assert.deepEqual(answers.map((answer) => answer.status).sort((a, b) => a - b), [201, 409, 409]);
    const list = await ctx.server.request('GET', '/v1/admin/users', { token: ctx.admin.accessToken });
    assert.equal(list.body.filter((user: { username: string }) => user.username === username).length, 1);
  });

  it('refuses a users:manage-only caller granting admin with 403 cannot_grant_unheld_permissions, creating nothing', async () => {
    const username = uniqueUsername('escalate');
    const response = await ctx.server.request('POST', '/v1/admin/users', {
      token: manager.accessToken,
      body: { username, password: 'an escalation attempt passphrase', permissions: ['admin'] },
    });
    assertError(response, 403, 'cannot_grant_unheld_permissions');
    assert.match(response.body.detail, /admin/);
    const list = await ctx.server.request('GET', '/v1/admin/users', { token: ctx.admin.accessToken });
    assert.ok(!list.body.some((user: { username: string }) => user.username === username));
  });

  it('lets a users:manage-only caller grant what it holds', async () => {
    const response = await ctx.server.request('POST', '/v1/admin/users', {
      token: manager.accessToken,
      body: { username: uniqueUsername(), password: 'granted only what is held', permissions: ['users:manage'] },
    });
    assert.equal(response.status, 201);
    assert.deepEqual(response.body.permissions, ['users:manage']);
  });

  it('stores legacy names under their replacements and answers with a Deprecation header', async () => {
    const response = await ctx.server.request('POST', '/v1/admin/users', {
      token: ctx.admin.accessToken,
      body: { username: uniqueUsername(), password: 'a legacy client passphrase', permissions: ['models:start', 'models:stop', 'models:add', 'models:list'] },
    });
    assert.equal(response.status, 201);
    assert.deepEqual(sorted(response.body.permissions), ['models:list', 'models:register', 'models:write']);
    assertLegacyDeprecation(response);
  });

  it('refuses bad fields with 400', async () => {
    const bodies = [
      { username: uniqueUsername(), password: 'too short' },
      { username: 'has space', password: 'a perfectly long passphrase' },
      { username: uniqueUsername(), password: 'a perfectly long passphrase', permissions: ['root'] },
      { username: uniqueUsername() },
      { username: uniqueUsername(), password: 'a perfectly long passphrase', extra: true },
    ];
    for (const body of bodies) {
      const response = await ctx.server.request('POST', '/v1/admin/users', { token: ctx.admin.accessToken, body });
      assert.equal(response.status, 400, JSON.stringify(body));
    }
  });

  it('needs users:manage (403) and credentials (401)', async () => {
    const keyCreator = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
    const body = { username: uniqueUsername(), password: 'a perfectly long passphrase' };
    const forbidden = await ctx.server.request('POST', '/v1/admin/users', { token: keyCreator.accessToken, body });
    assertError(forbidden, 403, 'permission_denied');
    assert.equal((await ctx.server.request('POST', '/v1/admin/users', { body })).status, 401);
  });
});

describe('GET /v1/admin/users and /v1/admin/users/{user_id}', () => {
  const ctx = useServerWithAdmin();
  let user: LoggedInUser;
  beforeAll(async () => {
    user = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
  });

  it('lists every user, oldest first, without password material', async () => {
    const response = await ctx.server.request('GET', '/v1/admin/users', { token: ctx.admin.accessToken });
    assert.equal(response.status, 200);
    assert.deepEqual(
      response.body.map((u: { id: string }) => u.id),
      [ctx.admin.id, user.id],
    );
    assert.equal(response.body[0].source, 'setup');
    assert.ok(!/argon2|password_hash/.test(response.text));
  });

  it('gets one user', async () => {
    const response = await ctx.server.request('GET', `/v1/admin/users/${user.id}`, { token: ctx.admin.accessToken });
    assert.equal(response.status, 200);
    assert.equal(response.body.username, user.username);
    assert.deepEqual(response.body.permissions, ['models:list']);
  });

  it('answers 404 user_not_found for an unknown id', async () => {
    const response = await ctx.server.request('GET', '/v1/admin/users/no-such-user', { token: ctx.admin.accessToken });
    assertError(response, 404, 'user_not_found');
  });

  it('needs users:manage', async () => {
    for (const path of ['/v1/admin/users', `/v1/admin/users/${ctx.admin.id}`, `/v1/admin/users/${ctx.admin.id}/permissions`]) {
      const response = await ctx.server.request('GET', path, { token: user.accessToken });
      assertError(response, 403, 'permission_denied', path);
    }
  });
});

describe('PUT /v1/admin/users/{user_id}', () => {
  const ctx = useServerWithAdmin();
  let manager: LoggedInUser;
  beforeAll(async () => {
    manager = await createUser(ctx.server, ctx.admin.accessToken, ['users:manage', 'models:list']);
  });

  it('replaces a user\'s permissions', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    const response = await ctx.server.request('PUT', `/v1/admin/users/${user.id}`, {
      token: ctx.admin.accessToken,
      body: { permissions: ['models:read', 'models:start'] },
    });
    assert.equal(response.status, 200);
    assert.deepEqual(sorted(response.body.permissions), ['models:read', 'models:write']);
    assertLegacyDeprecation(response);
  });

  it('disables a user: their access token and API key fail on the next request, and login fails', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create', 'models:list']);
    const key = await createKey(ctx.server, user.accessToken);
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
    const response = await ctx.server.request('PUT', `/v1/admin/users/${user.id}`, { token: ctx.admin.accessToken, body: { enabled: false } });
    assert.equal(response.status, 200);
    assert.equal(response.body.enabled, false);

    const byToken = await ctx.server.request('GET', '/v1/auth/me', { token: user.accessToken });
    assert.equal(byToken.status, 401);
    const byKey = await ctx.server.request('GET', '/v1/auth/me', { token: key.key });
    assertError(byKey, 401, 'account_disabled');
    assert.equal((await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: user.refreshToken } })).status, 401);
    assert.equal((await ctx.server.request('POST', '/v1/auth/login', { body: { username: user.username, password: user.password } })).status, 401);
  });

  it('re-enables a user: login and their keys work again, old access tokens stay dead', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
    const key = await createKey(ctx.server, user.accessToken);
    await ctx.server.request('PUT', `/v1/admin/users/${user.id}`, { token: ctx.admin.accessToken, body: { enabled: false } });
    const response = await ctx.server.request('PUT', `/v1/admin/users/${user.id}`, { token: ctx.admin.accessToken, body: { enabled: true } });
    assert.equal(response.status, 200);
    assert.equal(response.body.enabled, true);
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: user.accessToken })).status, 401);
    await login(ctx.server, user.username, user.password);
  });

  it('refuses changes to one\'s own account with 403 cannot_modify_self', async () => {
    const attempts = [
      { method: 'PUT', path: `/v1/admin/users/${manager.id}`, body: { enabled: false } },
      { method: 'PUT', path: `/v1/admin/users/${manager.id}`, body: { permissions: ['users:manage'] } },
      { method: 'PUT', path: `/v1/admin/users/${manager.id}/permissions`, body: { permissions: ['models:list'] } },
      { method: 'DELETE', path: `/v1/admin/users/${manager.id}` },
    ];
    for (const { method, path, body } of attempts) {
      const response = await ctx.server.request(method, path, { token: manager.accessToken, ...(body === undefined ? {} : { body }) });
      assertError(response, 403, 'cannot_modify_self', `${method} ${path}`);
    }
    const me = await ctx.server.request('GET', `/v1/admin/users/${manager.id}`, { token: ctx.admin.accessToken });
    assert.deepEqual(sorted(me.body.permissions), ['models:list', 'users:manage']);
    assert.equal(me.body.enabled, true);
  });

  it('refuses to act on a user holding permissions the caller lacks with 403 target_holds_unheld_permissions', async () => {
    const keyHolder = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
    for (const target of [ctx.admin.id, keyHolder.id]) {
      const attempts = [
        { method: 'PUT', path: `/v1/admin/users/${target}`, body: { enabled: false } },
        { method: 'PUT', path: `/v1/admin/users/${target}/permissions`, body: { permissions: [] } },
        { method: 'PUT', path: `/v1/admin/users/${target}/password`, body: { new_password: 'a takeover passphrase attempt' } },
        { method: 'DELETE', path: `/v1/admin/users/${target}` },
      ];
      for (const { method, path, body } of attempts) {
        const response = await ctx.server.request(method, path, { token: manager.accessToken, ...(body === undefined ? {} : { body }) });
        assertError(response, 403, 'target_holds_unheld_permissions', `${method} ${path}`);
      }
    }
    await login(ctx.server, keyHolder.username, keyHolder.password);
    await login(ctx.server, adminCredentials.username, adminCredentials.password);
  });

  it('refuses a grant the caller does not hold with 403 cannot_grant_unheld_permissions', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    const response = await ctx.server.request('PUT', `/v1/admin/users/${user.id}`, { token: manager.accessToken, body: { permissions: ['models:list', 'keys:manage'] } });
    assertError(response, 403, 'cannot_grant_unheld_permissions');
  });

  it('lets an admin disable or de-admin another admin while one enabled admin remains', async () => {
    const second = await createUser(ctx.server, ctx.admin.accessToken, ['admin']);
    const third = await createUser(ctx.server, ctx.admin.accessToken, ['admin']);
    const deAdmined = await ctx.server.request('PUT', `/v1/admin/users/${second.id}`, { token: ctx.admin.accessToken, body: { permissions: ['models:list'] } });
    assert.equal(deAdmined.status, 200);
    assert.deepEqual(deAdmined.body.permissions, ['models:list']);
    const disabled = await ctx.server.request('PUT', `/v1/admin/users/${third.id}`, { token: ctx.admin.accessToken, body: { enabled: false } });
    assert.equal(disabled.status, 200);
  });

  it('answers 404 for an unknown user and 400 for an empty change', async () => {
    const unknown = await ctx.server.request('PUT', '/v1/admin/users/no-such-user', { token: ctx.admin.accessToken, body: { enabled: false } });
    assertError(unknown, 404, 'user_not_found');
    const empty = await ctx.server.request('PUT', `/v1/admin/users/${manager.id}`, { token: ctx.admin.accessToken, body: {} });
    assert.equal(empty.status, 400);
  });
});

// With a second admin as the caller there are always two enabled admins, so `last_admin` is reached
// only with authentication switched off (an anonymous caller) or when two admins act at once.
describe('the last enabled administrator, with authentication switched off', () => {
  const ctx = useServer({ env: { SVC_AUTH_ADVANCED: 'false' } });
  let adminId: string;
  beforeAll(async () => {
    const setup = await ctx.server.request('POST', '/v1/admin/setup', { body: adminCredentials });
    assert.equal(setup.status, 201);
    adminId = setup.body.id;
  });

  it('cannot be disabled, de-admined or deleted (409 last_admin)', async () => {
    const attempts = [
      { method: 'PUT', path: `/v1/admin/users/${adminId}`, body: { enabled: false } },
      { method: 'PUT', path: `/v1/admin/users/${adminId}`, body: { permissions: ['users:manage'] } },
      { method: 'PUT', path: `/v1/admin/users/${adminId}/permissions`, body: { permissions: [] } },
      { method: 'DELETE', path: `/v1/admin/users/${adminId}` },
    ];
    for (const { method, path, body } of attempts) {
      const response = await ctx.server.request(method, path, body === undefined ? {} : { body });
      assertError(response, 409, 'last_admin', `${method} ${path}`);
    }
    const stored = await ctx.server.request('GET', `/v1/admin/users/${adminId}`);
    assert.equal(stored.body.enabled, true);
    assert.deepEqual(stored.body.permissions, ['admin']);
  });

  it('can be disabled once another admin is enabled, which then becomes the last one', async () => {
    const second = await ctx.server.request('POST', '/v1/admin/users', {
      body: { username: 'second-admin', password: 'the second admin passphrase', permissions: ['admin'] },
    });
    assert.equal(second.status, 201);
    assert.equal((await ctx.server.request('PUT', `/v1/admin/users/${adminId}`, { body: { enabled: false } })).status, 200);
    const last = await ctx.server.request('PUT', `/v1/admin/users/${second.body.id}`, { body: { enabled: false } });
    assertError(last, 409, 'last_admin');
    assert.equal((await ctx.server.request('DELETE', `/v1/admin/users/${adminId}`)).status, 204, 'a disabled admin may be deleted');
  });
});

describe('two admins disabling each other at once', () => {
  const ctx = useServer();
  let first: LoggedInUser;
  let second: LoggedInUser;
  beforeAll(async () => {
    first = await setupAdmin(ctx.server);
    second = await createUser(ctx.server, first.accessToken, ['admin']);
  });

  it('leaves exactly one admin enabled', async () => {
    const answers = await Promise.all([
      ctx.server.request('PUT', `/v1/admin/users/${second.id}`, { token: first.accessToken, body: { enabled: false } }),
      ctx.server.request('PUT', `/v1/admin/users/${first.id}`, { token: second.accessToken, body: { enabled: false } }),
    ]);
    const statuses = answers.map((answer) => answer.status).sort((a, b) => a - b);
    assert.equal(statuses[0], 200);
    assert.ok(statuses[1] === 401 || statuses[1] === 409, `the other answer was ${statuses[1]}`);
    let enabled = 0;
    for (const user of [first, second]) {
      const response = await ctx.server.request('POST', '/v1/auth/login', { body: { username: user.username, password: user.password } });
      if (response.status === 200) enabled += 1;
    }
    assert.equal(enabled, 1);
  });
});

describe('DELETE /v1/admin/users/{user_id}', () => {
  const ctx = useServerWithAdmin();

  it('deletes a user (204): their keys, access tokens and refresh tokens stop working', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
    const key = await createKey(ctx.server, user.accessToken);
    const response = await ctx.server.request('DELETE', `/v1/admin/users/${user.id}`, { token: ctx.admin.accessToken });
    assert.equal(response.status, 204);
    assert.equal(response.text, '');
    assert.equal((await ctx.server.request('GET', `/v1/admin/users/${user.id}`, { token: ctx.admin.accessToken })).status, 404);
    const byKey = await ctx.server.request('GET', '/v1/auth/me', { token: key.key });
    assertError(byKey, 401, 'invalid_api_key');
    const byToken = await ctx.server.request('GET', '/v1/auth/me', { token: user.accessToken });
    assertError(byToken, 401, 'invalid_token');
    assert.equal((await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: user.refreshToken } })).status, 401);
    assert.equal((await ctx.server.request('GET', `/v1/admin/keys/${key.id}`, { token: ctx.admin.accessToken })).status, 404);
  });

  it('frees the username for a new account', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, []);
    await ctx.server.request('DELETE', `/v1/admin/users/${user.id}`, { token: ctx.admin.accessToken });
    const again = await createUser(ctx.server, ctx.admin.accessToken, [], user.username);
    assert.notEqual(again.id, user.id);
  });

  it('answers 404 for an unknown user', async () => {
    const response = await ctx.server.request('DELETE', '/v1/admin/users/no-such-user', { token: ctx.admin.accessToken });
    assertError(response, 404, 'user_not_found');
  });
});

describe('PUT /v1/admin/users/{user_id}/password', () => {
  const ctx = useServerWithAdmin();

  it('sets another user\'s password (204) and ends their sessions', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    const newPassword = 'set by the administrator today';
    const response = await ctx.server.request('PUT', `/v1/admin/users/${user.id}/password`, { token: ctx.admin.accessToken, body: { new_password: newPassword } });
    assert.equal(response.status, 204);
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: user.accessToken })).status, 401);
    assert.equal((await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: user.refreshToken } })).status, 401);
    assert.equal((await ctx.server.request('POST', '/v1/auth/login', { body: { username: user.username, password: user.password } })).status, 401);
    await login(ctx.server, user.username, newPassword);
  });

  it('can flag the user to change the password at next login', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, []);
    const newPassword = 'a temporary passphrase to replace';
    const response = await ctx.server.request('PUT', `/v1/admin/users/${user.id}/password`, {
      token: ctx.admin.accessToken,
      body: { new_password: newPassword, must_change_password: true },
    });
    assert.equal(response.status, 204);
    assert.equal((await login(ctx.server, user.username, newPassword)).must_change_password, true);
  });

  it('refuses a password that breaks the policy (400) and an unknown user (404)', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, []);
    const weak = await ctx.server.request('PUT', `/v1/admin/users/${user.id}/password`, { token: ctx.admin.accessToken, body: { new_password: 'passwordpassword' } });
    assertError(weak, 400, 'password_too_common');
    const unknown = await ctx.server.request('PUT', '/v1/admin/users/no-such-user/password', { token: ctx.admin.accessToken, body: { new_password: 'a perfectly long passphrase' } });
    assert.equal(unknown.status, 404);
  });

  it('needs the current password for one\'s own account, then ends one\'s own sessions', async () => {
    const path = `/v1/admin/users/${ctx.admin.id}/password`;
    const newPassword = 'the admin chose a new passphrase';
    for (const body of [{ new_password: newPassword }, { new_password: newPassword, current_password: 'a wrong current passphrase' }]) {
      const response = await ctx.server.request('PUT', path, { token: ctx.admin.accessToken, body });
      assertError(response, 403, 'current_password_incorrect');
    }
    const response = await ctx.server.request('PUT', path, { token: ctx.admin.accessToken, body: { new_password: newPassword, current_password: ctx.admin.password } });
    assert.equal(response.status, 204);
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: ctx.admin.accessToken })).status, 401);
    const tokens = await login(ctx.server, ctx.admin.username, newPassword);
    // Keep the block's admin usable: the old password and tokens no longer are.
    Object.assign(ctx.admin, { password: newPassword, accessToken: tokens.access_token, refreshToken: tokens.refresh_token });
  });
});

describe('GET and PUT /v1/admin/users/{user_id}/permissions', () => {
  const ctx = useServerWithAdmin();
  let manager: LoggedInUser;
  beforeAll(async () => {
    manager = await createUser(ctx.server, ctx.admin.accessToken, ['users:manage', 'models:list', 'models:read']);
  });

  it('gets a user\'s permissions', async () => {
    const response = await ctx.server.request('GET', `/v1/admin/users/${manager.id}/permissions`, { token: ctx.admin.accessToken });
    assert.equal(response.status, 200);
    assert.deepEqual(sorted(response.body.permissions), ['models:list', 'models:read', 'users:manage']);
  });

  it('replaces them, mapping legacy names with a Deprecation header', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    const response = await ctx.server.request('PUT', `/v1/admin/users/${user.id}/permissions`, {
      token: ctx.admin.accessToken,
      body: { permissions: ['models:unregister', 'models:list', 'models:list'] },
    });
    assert.equal(response.status, 200);
    assert.deepEqual(sorted(response.body.permissions), ['models:list', 'models:register']);
    assertLegacyDeprecation(response);
    const stored = await ctx.server.request('GET', `/v1/admin/users/${user.id}/permissions`, { token: ctx.admin.accessToken });
    assert.deepEqual(sorted(stored.body.permissions), ['models:list', 'models:register']);
  });

  it('refuses a grant the caller does not hold (403) and an unknown user (404)', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    const grant = await ctx.server.request('PUT', `/v1/admin/users/${user.id}/permissions`, { token: manager.accessToken, body: { permissions: ['admin'] } });
    assertError(grant, 403, 'cannot_grant_unheld_permissions');
    for (const method of ['GET', 'PUT']) {
      const response = await ctx.server.request(method, '/v1/admin/users/no-such-user/permissions', {
        token: ctx.admin.accessToken,
        ...(method === 'PUT' ? { body: { permissions: [] } } : {}),
      });
      assertError(response, 404, 'user_not_found');
    }
  });

  it('applies a grant and a revocation to the very next request of an unexpired token and key', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['models:list', 'keys:create']);
    const key = await createKey(ctx.server, user.accessToken);
    for (const token of [user.accessToken, key.key]) {
      assert.equal((await ctx.server.request('GET', '/v1/admin/users', { token })).status, 403);
    }
    const grant = await ctx.server.request('PUT', `/v1/admin/users/${user.id}/permissions`, {
      token: ctx.admin.accessToken,
      body: { permissions: ['models:list', 'keys:create', 'users:manage'] },
    });
    assert.equal(grant.status, 200);
    for (const token of [user.accessToken, key.key]) {
      assert.equal((await ctx.server.request('GET', '/v1/admin/users', { token })).status, 200);
    }
    const revoke = await ctx.server.request('PUT', `/v1/admin/users/${user.id}/permissions`, { token: ctx.admin.accessToken, body: { permissions: ['models:list'] } });
    assert.equal(revoke.status, 200);
    for (const token of [user.accessToken, key.key]) {
      assert.equal((await ctx.server.request('GET', '/v1/admin/users', { token })).status, 403);
      assert.equal((await ctx.server.request('GET', '/v1/admin/keys', { token })).status, 403);
    }
  });
});
