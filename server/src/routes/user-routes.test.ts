import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminCredentials, createKey, createUser, login, setupAdmin, startTestServer, uniqueUsername, type LoggedInUser, type TestServer } from '../testing/index.js';

const DEPRECATION = '@1735689600';

/** Permission lists compared as sets: the order of a stored list is not part of the contract. */
const sorted = (permissions: readonly string[]) => [...permissions].sort();

describe('POST /v1/admin/users', () => {
  let server: TestServer;
  let admin: LoggedInUser;
  let manager: LoggedInUser;
  before(async () => {
    server = await startTestServer();
    admin = await setupAdmin(server);
    manager = await createUser(server, admin.accessToken, ['users:manage']);
  });
  after(() => server.close());

  it('creates a user (201) who can then log in', async () => {
    const username = uniqueUsername('alice');
    const password = 'alice has a long passphrase';
    const response = await server.request('POST', '/v1/admin/users', {
      token: admin.accessToken,
      body: { username, password, permissions: ['models:read', 'keys:create', 'models:list'] },
    });
    assert.equal(response.status, 201);
    assert.equal(response.body.username, username);
    assert.equal(response.body.source, 'local');
    assert.equal(response.body.enabled, true);
    assert.equal(response.body.must_change_password, false);
    assert.deepEqual(sorted(response.body.permissions), ['keys:create', 'models:list', 'models:read']);
    assert.equal(response.headers.get('deprecation'), null);
    const tokens = await login(server, username, password);
    const me = await server.request('GET', '/v1/auth/me', { token: tokens.access_token });
    assert.equal(me.body.id, response.body.id);
  });

  it('creates a user with no permissions when none are given', async () => {
    const response = await server.request('POST', '/v1/admin/users', {
      token: admin.accessToken,
      body: { username: uniqueUsername(), password: 'a user who may do nothing' },
    });
    assert.equal(response.status, 201);
    assert.deepEqual(response.body.permissions, []);
  });

  it('refuses a username already taken, whatever its case, with 409 username_taken', async () => {
    const username = uniqueUsername('Bob');
    await createUser(server, admin.accessToken, [], username);
    for (const taken of [username, username.toUpperCase(), username.toLowerCase()]) {
      const response = await server.request('POST', '/v1/admin/users', {
        token: admin.accessToken,
        body: { username: taken, password: 'another long passphrase' },
      });
      assert.equal(response.status, 409);
      assert.equal(response.body.error.code, 'username_taken');
    }
    assert.equal((await server.request('POST', '/v1/admin/users', { token: admin.accessToken, body: { username: 'ADMIN', password: 'another long passphrase' } })).status, 409);
  });

  it('creates exactly one account when the same name is asked for concurrently', async () => {
    const username = uniqueUsername('race');
    const answers = await Promise.all(
      ['first', 'second', 'third'].map((which) =>
        server.request('POST', '/v1/admin/users', { token: admin.accessToken, body: { username, password: `the ${which} racing passphrase` } }),
      ),
    );
    assert.deepEqual(answers.map((answer) => answer.status).sort((a, b) => a - b), [201, 409, 409]);
    const list = await server.request('GET', '/v1/admin/users', { token: admin.accessToken });
    assert.equal(list.body.filter((user: { username: string }) => user.username === username).length, 1);
  });

  it('refuses a users:manage-only caller granting admin with 403 cannot_grant_unheld_permissions, creating nothing', async () => {
    const username = uniqueUsername('escalate');
    const response = await server.request('POST', '/v1/admin/users', {
      token: manager.accessToken,
      body: { username, password: 'an escalation attempt passphrase', permissions: ['admin'] },
    });
    assert.equal(response.status, 403);
    assert.equal(response.body.error.code, 'cannot_grant_unheld_permissions');
    assert.match(response.body.detail, /admin/);
    const list = await server.request('GET', '/v1/admin/users', { token: admin.accessToken });
    assert.ok(!list.body.some((user: { username: string }) => user.username === username));
  });

  it('lets a users:manage-only caller grant what it holds', async () => {
    const response = await server.request('POST', '/v1/admin/users', {
      token: manager.accessToken,
      body: { username: uniqueUsername(), password: 'granted only what is held', permissions: ['users:manage'] },
    });
    assert.equal(response.status, 201);
    assert.deepEqual(response.body.permissions, ['users:manage']);
  });

  it('stores legacy names under their replacements and answers with a Deprecation header', async () => {
    const response = await server.request('POST', '/v1/admin/users', {
      token: admin.accessToken,
      body: { username: uniqueUsername(), password: 'a legacy client passphrase', permissions: ['models:start', 'models:stop', 'models:add', 'models:list'] },
    });
    assert.equal(response.status, 201);
    assert.deepEqual(sorted(response.body.permissions), ['models:list', 'models:register', 'models:write']);
    assert.equal(response.headers.get('deprecation'), DEPRECATION);
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
      const response = await server.request('POST', '/v1/admin/users', { token: admin.accessToken, body });
      assert.equal(response.status, 400, JSON.stringify(body));
    }
  });

  it('needs users:manage (403) and credentials (401)', async () => {
    const keyCreator = await createUser(server, admin.accessToken, ['keys:create']);
    const body = { username: uniqueUsername(), password: 'a perfectly long passphrase' };
    const forbidden = await server.request('POST', '/v1/admin/users', { token: keyCreator.accessToken, body });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.error.code, 'permission_denied');
    assert.equal((await server.request('POST', '/v1/admin/users', { body })).status, 401);
  });
});

describe('GET /v1/admin/users and /v1/admin/users/{user_id}', () => {
  let server: TestServer;
  let admin: LoggedInUser;
  let user: LoggedInUser;
  before(async () => {
    server = await startTestServer();
    admin = await setupAdmin(server);
    user = await createUser(server, admin.accessToken, ['models:list']);
  });
  after(() => server.close());

  it('lists every user, oldest first, without password material', async () => {
    const response = await server.request('GET', '/v1/admin/users', { token: admin.accessToken });
    assert.equal(response.status, 200);
    assert.deepEqual(
      response.body.map((u: { id: string }) => u.id),
      [admin.id, user.id],
    );
    assert.equal(response.body[0].source, 'setup');
    assert.ok(!/argon2|password_hash/.test(response.text));
  });

  it('gets one user', async () => {
    const response = await server.request('GET', `/v1/admin/users/${user.id}`, { token: admin.accessToken });
    assert.equal(response.status, 200);
    assert.equal(response.body.username, user.username);
    assert.deepEqual(response.body.permissions, ['models:list']);
  });

  it('answers 404 user_not_found for an unknown id', async () => {
    const response = await server.request('GET', '/v1/admin/users/no-such-user', { token: admin.accessToken });
    assert.equal(response.status, 404);
    assert.equal(response.body.error.code, 'user_not_found');
  });

  it('needs users:manage', async () => {
    for (const path of ['/v1/admin/users', `/v1/admin/users/${admin.id}`, `/v1/admin/users/${admin.id}/permissions`]) {
      const response = await server.request('GET', path, { token: user.accessToken });
      assert.equal(response.status, 403, path);
      assert.equal(response.body.error.code, 'permission_denied');
    }
  });
});

describe('PUT /v1/admin/users/{user_id}', () => {
  let server: TestServer;
  let admin: LoggedInUser;
  let manager: LoggedInUser;
  before(async () => {
    server = await startTestServer();
    admin = await setupAdmin(server);
    manager = await createUser(server, admin.accessToken, ['users:manage', 'models:list']);
  });
  after(() => server.close());

  it('replaces a user\'s permissions', async () => {
    const user = await createUser(server, admin.accessToken, ['models:list']);
    const response = await server.request('PUT', `/v1/admin/users/${user.id}`, {
      token: admin.accessToken,
      body: { permissions: ['models:read', 'models:start'] },
    });
    assert.equal(response.status, 200);
    assert.deepEqual(sorted(response.body.permissions), ['models:read', 'models:write']);
    assert.equal(response.headers.get('deprecation'), DEPRECATION);
  });

  it('disables a user: their access token and API key fail on the next request, and login fails', async () => {
    const user = await createUser(server, admin.accessToken, ['keys:create', 'models:list']);
    const key = await createKey(server, user.accessToken);
    assert.equal((await server.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
    const response = await server.request('PUT', `/v1/admin/users/${user.id}`, { token: admin.accessToken, body: { enabled: false } });
    assert.equal(response.status, 200);
    assert.equal(response.body.enabled, false);

    const byToken = await server.request('GET', '/v1/auth/me', { token: user.accessToken });
    assert.equal(byToken.status, 401);
    const byKey = await server.request('GET', '/v1/auth/me', { token: key.key });
    assert.equal(byKey.status, 401);
    assert.equal(byKey.body.error.code, 'account_disabled');
    assert.equal((await server.request('POST', '/v1/auth/refresh', { body: { refresh_token: user.refreshToken } })).status, 401);
    assert.equal((await server.request('POST', '/v1/auth/login', { body: { username: user.username, password: user.password } })).status, 401);
  });

  it('re-enables a user: login and their keys work again, old access tokens stay dead', async () => {
    const user = await createUser(server, admin.accessToken, ['keys:create']);
    const key = await createKey(server, user.accessToken);
    await server.request('PUT', `/v1/admin/users/${user.id}`, { token: admin.accessToken, body: { enabled: false } });
    const response = await server.request('PUT', `/v1/admin/users/${user.id}`, { token: admin.accessToken, body: { enabled: true } });
    assert.equal(response.status, 200);
    assert.equal(response.body.enabled, true);
    assert.equal((await server.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
    assert.equal((await server.request('GET', '/v1/auth/me', { token: user.accessToken })).status, 401);
    await login(server, user.username, user.password);
  });

  it('refuses changes to one\'s own account with 403 cannot_modify_self', async () => {
    const attempts = [
      { method: 'PUT', path: `/v1/admin/users/${manager.id}`, body: { enabled: false } },
      { method: 'PUT', path: `/v1/admin/users/${manager.id}`, body: { permissions: ['users:manage'] } },
      { method: 'PUT', path: `/v1/admin/users/${manager.id}/permissions`, body: { permissions: ['models:list'] } },
      { method: 'DELETE', path: `/v1/admin/users/${manager.id}` },
    ];
    for (const { method, path, body } of attempts) {
      const response = await server.request(method, path, { token: manager.accessToken, ...(body === undefined ? {} : { body }) });
      assert.equal(response.status, 403, `${method} ${path}`);
      assert.equal(response.body.error.code, 'cannot_modify_self');
    }
    const me = await server.request('GET', `/v1/admin/users/${manager.id}`, { token: admin.accessToken });
    assert.deepEqual(sorted(me.body.permissions), ['models:list', 'users:manage']);
    assert.equal(me.body.enabled, true);
  });

  it('refuses to act on a user holding permissions the caller lacks with 403 target_holds_unheld_permissions', async () => {
    const keyHolder = await createUser(server, admin.accessToken, ['keys:create']);
    for (const target of [admin.id, keyHolder.id]) {
      const attempts = [
        { method: 'PUT', path: `/v1/admin/users/${target}`, body: { enabled: false } },
        { method: 'PUT', path: `/v1/admin/users/${target}/permissions`, body: { permissions: [] } },
        { method: 'PUT', path: `/v1/admin/users/${target}/password`, body: { new_password: 'a takeover passphrase attempt' } },
        { method: 'DELETE', path: `/v1/admin/users/${target}` },
      ];
      for (const { method, path, body } of attempts) {
        const response = await server.request(method, path, { token: manager.accessToken, ...(body === undefined ? {} : { body }) });
        assert.equal(response.status, 403, `${method} ${path}`);
        assert.equal(response.body.error.code, 'target_holds_unheld_permissions');
      }
    }
    await login(server, keyHolder.username, keyHolder.password);
    await login(server, adminCredentials.username, adminCredentials.password);
  });

  it('refuses a grant the caller does not hold with 403 cannot_grant_unheld_permissions', async () => {
    const user = await createUser(server, admin.accessToken, ['models:list']);
    const response = await server.request('PUT', `/v1/admin/users/${user.id}`, { token: manager.accessToken, body: { permissions: ['models:list', 'keys:manage'] } });
    assert.equal(response.status, 403);
    assert.equal(response.body.error.code, 'cannot_grant_unheld_permissions');
  });

  it('lets an admin disable or de-admin another admin while one enabled admin remains', async () => {
    const second = await createUser(server, admin.accessToken, ['admin']);
    const third = await createUser(server, admin.accessToken, ['admin']);
    const deAdmined = await server.request('PUT', `/v1/admin/users/${second.id}`, { token: admin.accessToken, body: { permissions: ['models:list'] } });
    assert.equal(deAdmined.status, 200);
    assert.deepEqual(deAdmined.body.permissions, ['models:list']);
    const disabled = await server.request('PUT', `/v1/admin/users/${third.id}`, { token: admin.accessToken, body: { enabled: false } });
    assert.equal(disabled.status, 200);
  });

  it('answers 404 for an unknown user and 400 for an empty change', async () => {
    const unknown = await server.request('PUT', '/v1/admin/users/no-such-user', { token: admin.accessToken, body: { enabled: false } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'user_not_found');
    const empty = await server.request('PUT', `/v1/admin/users/${manager.id}`, { token: admin.accessToken, body: {} });
    assert.equal(empty.status, 400);
  });
});

// With a second admin as the caller there are always two enabled admins, so `last_admin` is reached
// only with authentication switched off (an anonymous caller) or when two admins act at once.
describe('the last enabled administrator, with authentication switched off', () => {
  let server: TestServer;
  let adminId: string;
  before(async () => {
    server = await startTestServer({ env: { SVC_AUTH_ADVANCED: 'false' } });
    const setup = await server.request('POST', '/v1/admin/setup', { body: adminCredentials });
    assert.equal(setup.status, 201);
    adminId = setup.body.id;
  });
  after(() => server.close());

  it('cannot be disabled, de-admined or deleted (409 last_admin)', async () => {
    const attempts = [
      { method: 'PUT', path: `/v1/admin/users/${adminId}`, body: { enabled: false } },
      { method: 'PUT', path: `/v1/admin/users/${adminId}`, body: { permissions: ['users:manage'] } },
      { method: 'PUT', path: `/v1/admin/users/${adminId}/permissions`, body: { permissions: [] } },
      { method: 'DELETE', path: `/v1/admin/users/${adminId}` },
    ];
    for (const { method, path, body } of attempts) {
      const response = await server.request(method, path, body === undefined ? {} : { body });
      assert.equal(response.status, 409, `${method} ${path}`);
      assert.equal(response.body.error.code, 'last_admin');
    }
    const stored = await server.request('GET', `/v1/admin/users/${adminId}`);
    assert.equal(stored.body.enabled, true);
    assert.deepEqual(stored.body.permissions, ['admin']);
  });

  it('can be disabled once another admin is enabled, which then becomes the last one', async () => {
    const second = await server.request('POST', '/v1/admin/users', {
      body: { username: 'second-admin', password: 'the second admin passphrase', permissions: ['admin'] },
    });
    assert.equal(second.status, 201);
    assert.equal((await server.request('PUT', `/v1/admin/users/${adminId}`, { body: { enabled: false } })).status, 200);
    const last = await server.request('PUT', `/v1/admin/users/${second.body.id}`, { body: { enabled: false } });
    assert.equal(last.status, 409);
    assert.equal(last.body.error.code, 'last_admin');
    assert.equal((await server.request('DELETE', `/v1/admin/users/${adminId}`)).status, 204, 'a disabled admin may be deleted');
  });
});

describe('two admins disabling each other at once', () => {
  let server: TestServer;
  let first: LoggedInUser;
  let second: LoggedInUser;
  before(async () => {
    server = await startTestServer();
    first = await setupAdmin(server);
    second = await createUser(server, first.accessToken, ['admin']);
  });
  after(() => server.close());

  it('leaves exactly one admin enabled', async () => {
    const answers = await Promise.all([
      server.request('PUT', `/v1/admin/users/${second.id}`, { token: first.accessToken, body: { enabled: false } }),
      server.request('PUT', `/v1/admin/users/${first.id}`, { token: second.accessToken, body: { enabled: false } }),
    ]);
    const statuses = answers.map((answer) => answer.status).sort((a, b) => a - b);
    assert.equal(statuses[0], 200);
    assert.ok(statuses[1] === 401 || statuses[1] === 409, `the other answer was ${statuses[1]}`);
    let enabled = 0;
    for (const user of [first, second]) {
      const response = await server.request('POST', '/v1/auth/login', { body: { username: user.username, password: user.password } });
      if (response.status === 200) enabled += 1;
    }
    assert.equal(enabled, 1);
  });
});

describe('DELETE /v1/admin/users/{user_id}', () => {
  let server: TestServer;
  let admin: LoggedInUser;
  before(async () => {
    server = await startTestServer();
    admin = await setupAdmin(server);
  });
  after(() => server.close());

  it('deletes a user (204): their keys, access tokens and refresh tokens stop working', async () => {
    const user = await createUser(server, admin.accessToken, ['keys:create']);
    const key = await createKey(server, user.accessToken);
    const response = await server.request('DELETE', `/v1/admin/users/${user.id}`, { token: admin.accessToken });
    assert.equal(response.status, 204);
    assert.equal(response.text, '');
    assert.equal((await server.request('GET', `/v1/admin/users/${user.id}`, { token: admin.accessToken })).status, 404);
    const byKey = await server.request('GET', '/v1/auth/me', { token: key.key });
    assert.equal(byKey.status, 401);
    assert.equal(byKey.body.error.code, 'invalid_api_key');
    const byToken = await server.request('GET', '/v1/auth/me', { token: user.accessToken });
    assert.equal(byToken.status, 401);
    assert.equal(byToken.body.error.code, 'invalid_token');
    assert.equal((await server.request('POST', '/v1/auth/refresh', { body: { refresh_token: user.refreshToken } })).status, 401);
    assert.equal((await server.request('GET', `/v1/admin/keys/${key.id}`, { token: admin.accessToken })).status, 404);
  });

  it('frees the username for a new account', async () => {
    const user = await createUser(server, admin.accessToken, []);
    await server.request('DELETE', `/v1/admin/users/${user.id}`, { token: admin.accessToken });
    const again = await createUser(server, admin.accessToken, [], user.username);
    assert.notEqual(again.id, user.id);
  });

  it('answers 404 for an unknown user', async () => {
    const response = await server.request('DELETE', '/v1/admin/users/no-such-user', { token: admin.accessToken });
    assert.equal(response.status, 404);
    assert.equal(response.body.error.code, 'user_not_found');
  });
});

describe('PUT /v1/admin/users/{user_id}/password', () => {
  let server: TestServer;
  let admin: LoggedInUser;
  before(async () => {
    server = await startTestServer();
    admin = await setupAdmin(server);
  });
  after(() => server.close());

  it('sets another user\'s password (204) and ends their sessions', async () => {
    const user = await createUser(server, admin.accessToken, ['models:list']);
    const newPassword = 'set by the administrator today';
    const response = await server.request('PUT', `/v1/admin/users/${user.id}/password`, { token: admin.accessToken, body: { new_password: newPassword } });
    assert.equal(response.status, 204);
    assert.equal((await server.request('GET', '/v1/auth/me', { token: user.accessToken })).status, 401);
    assert.equal((await server.request('POST', '/v1/auth/refresh', { body: { refresh_token: user.refreshToken } })).status, 401);
    assert.equal((await server.request('POST', '/v1/auth/login', { body: { username: user.username, password: user.password } })).status, 401);
    await login(server, user.username, newPassword);
  });

  it('can flag the user to change the password at next login', async () => {
    const user = await createUser(server, admin.accessToken, []);
    const newPassword = 'a temporary passphrase to replace';
    const response = await server.request('PUT', `/v1/admin/users/${user.id}/password`, {
      token: admin.accessToken,
      body: { new_password: newPassword, must_change_password: true },
    });
    assert.equal(response.status, 204);
    assert.equal((await login(server, user.username, newPassword)).must_change_password, true);
  });

  it('refuses a password that breaks the policy (400) and an unknown user (404)', async () => {
    const user = await createUser(server, admin.accessToken, []);
    const weak = await server.request('PUT', `/v1/admin/users/${user.id}/password`, { token: admin.accessToken, body: { new_password: 'passwordpassword' } });
    assert.equal(weak.status, 400);
    assert.equal(weak.body.error.code, 'password_too_common');
    const unknown = await server.request('PUT', '/v1/admin/users/no-such-user/password', { token: admin.accessToken, body: { new_password: 'a perfectly long passphrase' } });
    assert.equal(unknown.status, 404);
  });

  it('needs the current password for one\'s own account, then ends one\'s own sessions', async () => {
    const path = `/v1/admin/users/${admin.id}/password`;
    const newPassword = 'the admin chose a new passphrase';
    for (const body of [{ new_password: newPassword }, { new_password: newPassword, current_password: 'a wrong current passphrase' }]) {
      const response = await server.request('PUT', path, { token: admin.accessToken, body });
      assert.equal(response.status, 403);
      assert.equal(response.body.error.code, 'current_password_incorrect');
    }
    const response = await server.request('PUT', path, { token: admin.accessToken, body: { new_password: newPassword, current_password: admin.password } });
    assert.equal(response.status, 204);
    assert.equal((await server.request('GET', '/v1/auth/me', { token: admin.accessToken })).status, 401);
    const tokens = await login(server, admin.username, newPassword);
    admin = { ...admin, password: newPassword, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
  });
});

describe('GET and PUT /v1/admin/users/{user_id}/permissions', () => {
  let server: TestServer;
  let admin: LoggedInUser;
  let manager: LoggedInUser;
  before(async () => {
    server = await startTestServer();
    admin = await setupAdmin(server);
    manager = await createUser(server, admin.accessToken, ['users:manage', 'models:list', 'models:read']);
  });
  after(() => server.close());

  it('gets a user\'s permissions', async () => {
    const response = await server.request('GET', `/v1/admin/users/${manager.id}/permissions`, { token: admin.accessToken });
    assert.equal(response.status, 200);
    assert.deepEqual(sorted(response.body.permissions), ['models:list', 'models:read', 'users:manage']);
  });

  it('replaces them, mapping legacy names with a Deprecation header', async () => {
    const user = await createUser(server, admin.accessToken, ['models:list']);
    const response = await server.request('PUT', `/v1/admin/users/${user.id}/permissions`, {
      token: admin.accessToken,
      body: { permissions: ['models:unregister', 'models:list', 'models:list'] },
    });
    assert.equal(response.status, 200);
    assert.deepEqual(sorted(response.body.permissions), ['models:list', 'models:register']);
    assert.equal(response.headers.get('deprecation'), DEPRECATION);
    const stored = await server.request('GET', `/v1/admin/users/${user.id}/permissions`, { token: admin.accessToken });
    assert.deepEqual(sorted(stored.body.permissions), ['models:list', 'models:register']);
  });

  it('refuses a grant the caller does not hold (403) and an unknown user (404)', async () => {
    const user = await createUser(server, admin.accessToken, ['models:list']);
    const grant = await server.request('PUT', `/v1/admin/users/${user.id}/permissions`, { token: manager.accessToken, body: { permissions: ['admin'] } });
    assert.equal(grant.status, 403);
    assert.equal(grant.body.error.code, 'cannot_grant_unheld_permissions');
    for (const method of ['GET', 'PUT']) {
      const response = await server.request(method, '/v1/admin/users/no-such-user/permissions', {
        token: admin.accessToken,
        ...(method === 'PUT' ? { body: { permissions: [] } } : {}),
      });
      assert.equal(response.status, 404);
      assert.equal(response.body.error.code, 'user_not_found');
    }
  });

  it('applies a grant and a revocation to the very next request of an unexpired token and key', async () => {
    const user = await createUser(server, admin.accessToken, ['models:list', 'keys:create']);
    const key = await createKey(server, user.accessToken);
    for (const token of [user.accessToken, key.key]) {
      assert.equal((await server.request('GET', '/v1/admin/users', { token })).status, 403);
    }
    const grant = await server.request('PUT', `/v1/admin/users/${user.id}/permissions`, {
      token: admin.accessToken,
      body: { permissions: ['models:list', 'keys:create', 'users:manage'] },
    });
    assert.equal(grant.status, 200);
    for (const token of [user.accessToken, key.key]) {
      assert.equal((await server.request('GET', '/v1/admin/users', { token })).status, 200);
    }
    const revoke = await server.request('PUT', `/v1/admin/users/${user.id}/permissions`, { token: admin.accessToken, body: { permissions: ['models:list'] } });
    assert.equal(revoke.status, 200);
    for (const token of [user.accessToken, key.key]) {
      assert.equal((await server.request('GET', '/v1/admin/users', { token })).status, 403);
      assert.equal((await server.request('GET', '/v1/admin/keys', { token })).status, 403);
    }
  });
});
