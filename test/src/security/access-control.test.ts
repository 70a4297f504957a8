/**
 * Security requirements 29–34: deny by default over every operation of the contract, live
 * permissions, the rules that keep privilege from growing, IDOR on keys, claims that never widen
 * permissions, and failing closed when the database cannot be used.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { request as httpRequest } from 'node:http';
import { beforeAll, describe, it } from 'vitest';
import { operationSpecs, requestAuthorisedChannelName, ResponseValidator, type OperationSpec, type RequestAuthorisedMessage } from '@svc/server';
import {
  adminCredentials,
  assertError,
  breakDatabase,
  contractClient,
  createKey,
  createUser,
  holdWriteLock,
  login,
  replaceWithEmptyDatabase,
  setupAdmin,
  startServerProcess,
  startTestServer,
  useServerWithAdmin,
  withTempHome,
  withTestServer,
  type ContractClient,
  type LoggedInUser,
} from '@svc/server/testing';
import { decodeJwt, forgeJwt, jwtSecret, withDatabase } from './support.js';

/** The operation's path with every parameter replaced by a real id (a model that does not exist for model routes). */
function concretePath(spec: OperationSpec, ids: { userId: string; keyId: string }): string {
  return spec.path
    .replace('{user_id}', ids.userId)
    .replace('{key_id}', ids.keyId)
    .replace('{model_uid}', 'no-such-model')
    .replace('{model_type}', 'LLM')
    .replace('{model_name}', 'no-such-family');
}

describe('security: deny by default (R29)', () => {
  const ctx = useServerWithAdmin();
  let nobody: LoggedInUser;
  let ids: { userId: string; keyId: string };
  /** Credentials holding no permission at all: a user's token, a key they own, an admin key narrowed to nothing. */
  let zeroCredentials: [string, string][];

  beforeAll(async () => {
    nobody = await createUser(ctx.server, ctx.admin.accessToken, []);
    const victim = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    const adminKey = await createKey(ctx.server, ctx.admin.accessToken, { name: 'r29-target' });
    const nobodysKey = await createKey(ctx.server, ctx.admin.accessToken, { name: 'r29-nobody', owner: nobody.id });
    const narrowed = await createKey(ctx.server, ctx.admin.accessToken, { name: 'r29-narrowed', permissions: [] });
    ids = { userId: victim.id, keyId: adminKey.id };
    zeroCredentials = [
      ['a zero-permission user\'s token', nobody.accessToken],
      ['a zero-permission user\'s key', nobodysKey.key],
      ['an admin\'s key narrowed to no permission', narrowed.key],
    ];
  });

  it('R29: the contract lists every operation, each either public or with x-svc-permissions', () => {
    assert.ok(operationSpecs.length >= 40, `only ${operationSpecs.length} operations`);
    const publicOnes = operationSpecs.filter((s) => s.isPublic).map((s) => s.operationId).sort();
    assert.deepEqual(publicOnes, [
      // Single sign-on: the browser and CLI steps before there is a session (docs/sso.md).
      'completeOidcDeviceLogin',
      'completeOidcLogin',
      'createFirstAdmin',
      'endBrowserSession',
      'exchangeOidcCliCode',
      'getClusterAuth',
      'getClusterVersion',
      'getOidcLoginOptions',
      'getReady',
      'getSetupStatus',
      'getStatus',
      'getUiConfig',
      'login',
      'loginLegacy',
      'logout',
      'refreshBrowserSession',
      'refreshTokens',
      'startBrowserSession',
      'startOidcDeviceLogin',
      'startOidcLogin',
      'startOidcLogout',
    ]);
  });

  for (const spec of operationSpecs) {
    const label = `${spec.method} ${spec.path}`;
    if (spec.isPublic) {
      it(`R29: ${label} is public and answers without credentials`, async () => {
        const response = await ctx.server.request(spec.method, concretePath(spec, ids));
        assert.notEqual(response.status, 401, response.text);
        if (response.status === 403) assert.equal(response.body.error.code, 'setup_already_completed');
        assert.ok(response.status < 500, response.text);
      });
      continue;
    }
    it(`R29: ${label} answers 401 anonymously`, async () => {
      const path = concretePath(spec, ids);
      for (const headers of [{}, { authorization: 'Bearer ' }, { authorization: 'Basic YWRtaW46YWRtaW4=' }]) {
        const response = await ctx.server.request(spec.method, path, { headers });
        assert.ok(response.status === 401 || (response.status === 400 && response.body.error.code === 'malformed_authorization_header'), `${JSON.stringify(headers)}: ${response.status} ${response.text}`);
      }
      const anonymous = await ctx.server.request(spec.method, path);
      assertError(anonymous, 401, 'missing_credentials');
      assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/);
    });
    const needs = spec.requiredPermissions.length === 0 ? 'any authenticated caller' : spec.requiredPermissions.join(' or ');
    it(`R29: ${label} (${needs}) ${spec.requiredPermissions.length === 0 ? 'serves' : 'answers 403 to'} a zero-permission caller`, async () => {
      const path = concretePath(spec, ids);
      for (const [who, credential] of zeroCredentials) {
        const response = await ctx.server.request(spec.method, path, { token: credential });
        if (spec.requiredPermissions.length === 0) {
          assert.ok(![401, 403].includes(response.status) && response.status < 500, `${who}: ${response.status} ${response.text}`);
        } else {
          assertError(response, 403, 'permission_denied', `${who}: ${response.status} ${response.text}`);
        }
      }
    });
  }

  it('R29: only the contract\'s methods exist: HEAD on a protected GET path is no route (404), with or without credentials', async () => {
    // HEAD is not in the contract, so the server registers no HEAD twins of its GET routes: there
    // is no second way into a protected path.
    for (const spec of operationSpecs.filter((s) => s.method === 'GET' && !s.isPublic)) {
      const url = ctx.server.baseUrl + concretePath(spec, ids);
      assert.equal((await fetch(url, { method: 'HEAD' })).status, 404, `HEAD ${spec.path} anonymously`);
      for (const [who, credential] of zeroCredentials) {
        const response = await fetch(url, { method: 'HEAD', headers: { authorization: `Bearer ${credential}` } });
        assert.equal(response.status, 404, `HEAD ${spec.path} as ${who}`);
      }
    }
  });

  it('R29: the zero-permission caller changed nothing: the target user and key are as they were', async () => {
    const user = await ctx.server.request('GET', `/v1/admin/users/${ids.userId}`, { token: ctx.admin.accessToken });
    assert.equal(user.status, 200);
    assert.equal(user.body.enabled, true);
    assert.deepEqual(user.body.permissions, ['models:list']);
    const key = await ctx.server.request('GET', `/v1/admin/keys/${ids.keyId}`, { token: ctx.admin.accessToken });
    assert.equal(key.status, 200);
    assert.equal(key.body.enabled, true);
    assert.equal(key.body.name, 'r29-target');
  });
});

describe('security: each permission opens its operations (R29, the positive side)', () => {
  const ctx = useServerWithAdmin();
  let ids: { userId: string; keyId: string };
  beforeAll(async () => {
    const victim = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    const key = await createKey(ctx.server, ctx.admin.accessToken, { name: 'r29-positive-target' });
    ids = { userId: victim.id, keyId: key.id };
  });

  for (const spec of operationSpecs.filter((s) => !s.isPublic && s.requiredPermissions.length > 0)) {
    for (const permission of spec.requiredPermissions) {
      it(`R29: ${spec.method} ${spec.path} admits a caller holding only ${permission}, by JWT and by key`, async () => {
        const holder = await createUser(ctx.server, ctx.admin.accessToken, [permission]);
        const credentials: [string, string][] = [['JWT', holder.accessToken]];
        const canCreateKeys = permission === 'keys:create' || permission === 'admin';
        // A key is narrowed to exactly this permission (its owner, the admin, holds everything).
        const key = await createKey(ctx.server, ctx.admin.accessToken, { name: `only ${permission}`, permissions: [permission] });
        credentials.push(['key', key.key]);
        if (canCreateKeys) credentials.push(['own key', (await createKey(ctx.server, holder.accessToken, { name: 'own' })).key]);
        for (const [how, credential] of credentials) {
          const response = await ctx.server.request(spec.method, concretePath(spec, ids), { token: credential });
          // Past the permission check: anything but 401 and permission_denied (a rule's own 403, a 404 for the absent model, a 400 for no body).
          assert.notEqual(response.status, 401, `${how}: ${response.text}`);
          assert.notEqual(response.body?.error?.code, 'permission_denied', `${how}: ${response.text}`);
          assert.ok(response.status < 500, `${how}: ${response.status} ${response.text}`);
        }
      });
    }
  }
});

describe('security: legacy scope names work on the model routes (spec rule 2)', () => {
  const ctx = useServerWithAdmin();

  it('a user granted models:start / models:stop launches and stops models; models:add / models:unregister registers', async () => {
    const legacy = await createUser(ctx.server, ctx.admin.accessToken, ['models:start', 'models:stop', 'models:add', 'models:unregister', 'models:list']);
    const launched = await ctx.server.request('POST', '/v1/models', { token: legacy.accessToken, body: { model_uid: 'legacy-launch', model_name: 'echo' } });
    assert.equal(launched.status, 200, launched.text);
    assert.equal((await ctx.server.request('DELETE', '/v1/models/legacy-launch', { token: legacy.accessToken })).status, 200);
    const registered = await ctx.server.request('POST', '/v1/model_registrations/LLM', { token: legacy.accessToken, body: { model: { model_name: 'legacy-family' } } });
    assert.equal(registered.status, 200, registered.text);
    assert.equal((await ctx.server.request('DELETE', '/v1/model_registrations/LLM/legacy-family', { token: legacy.accessToken })).status, 200);
  });

  it('a key narrowed with legacy names (models:start, models:add) reaches exactly the mapped operations', async () => {
    const key = await createKey(ctx.server, ctx.admin.accessToken, { name: 'legacy key', permissions: ['models:start', 'models:add'] });
    assert.deepEqual(key.permissions, ['models:write', 'models:register']);
    const launched = await ctx.server.request('POST', '/v1/models', { token: key.key, body: { model_uid: 'legacy-key-launch', model_name: 'echo' } });
    assert.equal(launched.status, 200, launched.text);
    const registered = await ctx.server.request('POST', '/v1/model_registrations/LLM', { token: key.key, body: { model: { model_name: 'legacy-key-family' } } });
    assert.equal(registered.status, 200, registered.text);
    assertError(await ctx.server.request('GET', '/v1/models', { token: key.key }), 403, 'permission_denied');
    assertError(await ctx.server.request('GET', '/v1/cluster/logs', { token: key.key }), 403, 'permission_denied');
  });

  it('admin (the legacy scope of the log routes) reads the logs', async () => {
    const response = await ctx.server.request('GET', '/v1/cluster/logs', { token: ctx.admin.accessToken });
    assert.equal(response.status, 200);
  });
});

describe('security: permissions and ownership (R30–R33)', () => {
  const ctx = useServerWithAdmin();
  const setPermissions = (userId: string, permissions: string[]) =>
    ctx.server.request('PUT', `/v1/admin/users/${userId}/permissions`, { token: ctx.admin.accessToken, body: { permissions } });

  it('R30: a grant and a revocation apply on the next request of an unexpired token and key', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    const { key } = await createKey(ctx.server, ctx.admin.accessToken, { name: 'r30', owner: user.id });
    const usersList = (credential: string) => ctx.server.request('GET', '/v1/admin/users', { token: credential });
    for (const credential of [user.accessToken, key]) assert.equal((await usersList(credential)).status, 403);

    assert.equal((await setPermissions(user.id, ['models:list', 'users:manage'])).status, 200);
    for (const credential of [user.accessToken, key]) {
      assert.equal((await usersList(credential)).status, 200, 'the grant did not apply');
      assert.deepEqual((await ctx.server.request('GET', '/v1/auth/me', { token: credential })).body.permissions, ['models:list', 'users:manage']);
    }

    assert.equal((await setPermissions(user.id, ['models:list'])).status, 200);
    for (const credential of [user.accessToken, key]) assert.equal((await usersList(credential)).status, 403, 'the revocation did not apply');

    // `admin` itself is read from the database too: removing it takes effect at once.
    assert.equal((await setPermissions(user.id, ['admin'])).status, 200);
    for (const credential of [user.accessToken, key]) assert.equal((await ctx.server.request('GET', '/v1/admin/keys', { token: credential })).status, 200);
    assert.equal((await setPermissions(user.id, [])).status, 200);
    for (const credential of [user.accessToken, key]) assert.equal((await ctx.server.request('GET', '/v1/admin/keys', { token: credential })).status, 403);
  });

  it('R31: nobody grants a permission they do not hold', async () => {
    const manager = await createUser(ctx.server, ctx.admin.accessToken, ['users:manage', 'models:list']);
    const lesser = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    for (const permissions of [['admin'], ['keys:manage'], ['models:list', 'models:read'], ['models:start']]) {
      const created = await ctx.server.request('POST', '/v1/admin/users', {
        token: manager.accessToken,
        body: { username: `r31-${randomBytes(3).toString('hex')}`, password: 'a long passphrase for r31', permissions },
      });
      assertError(created, 403, 'cannot_grant_unheld_permissions', `created a user with ${permissions.join(',')}`);
      const raised = await ctx.server.request('PUT', `/v1/admin/users/${lesser.id}`, { token: manager.accessToken, body: { permissions } });
      assertError(raised, 403, 'cannot_grant_unheld_permissions');
      const raisedToo = await ctx.server.request('PUT', `/v1/admin/users/${lesser.id}/permissions`, { token: manager.accessToken, body: { permissions } });
      assert.equal(raisedToo.status, 403);
    }
    assert.deepEqual((await ctx.server.request('GET', `/v1/admin/users/${lesser.id}`, { token: ctx.admin.accessToken })).body.permissions, ['models:list']);
    // What the manager holds can be granted.
    const allowed = await ctx.server.request('POST', '/v1/admin/users', {
      token: manager.accessToken,
      body: { username: `r31-${randomBytes(3).toString('hex')}`, password: 'a long passphrase for r31', permissions: ['models:list'] },
    });
    assert.equal(allowed.status, 201);

    // A key cannot name permissions its creator does not hold either.
    const creator = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
    for (const permissions of [['admin'], ['users:manage'], ['keys:manage']]) {
      const key = await ctx.server.request('POST', '/v1/admin/keys', { token: creator.accessToken, body: { name: 'r31', permissions } });
      assertError(key, 403, 'cannot_grant_unheld_permissions', permissions.join(','));
    }
    const { id } = await createKey(ctx.server, creator.accessToken, { name: 'r31-own' });
    const widened = await ctx.server.request('PUT', `/v1/admin/keys/${id}`, { token: creator.accessToken, body: { permissions: ['admin'] } });
    assert.equal(widened.status, 403);
  });

  it('R31: nobody edits, disables, deletes or resets the password of a user holding permissions they lack', async () => {
    const manager = await createUser(ctx.server, ctx.admin.accessToken, ['users:manage', 'models:list']);
    const stronger = await createUser(ctx.server, ctx.admin.accessToken, ['users:manage', 'models:list', 'models:read']);
    for (const target of [stronger, ctx.admin]) {
      const attempts: [string, string, unknown][] = [
        ['PUT', `/v1/admin/users/${target.id}`, { enabled: false }],
        ['PUT', `/v1/admin/users/${target.id}`, { permissions: ['models:list'] }],
        ['PUT', `/v1/admin/users/${target.id}/permissions`, { permissions: [] }],
        ['PUT', `/v1/admin/users/${target.id}/password`, { new_password: 'taken over by the manager' }],
        ['DELETE', `/v1/admin/users/${target.id}`, undefined],
      ];
      for (const [method, path, body] of attempts) {
        const response = await ctx.server.request(method, path, body === undefined ? { token: manager.accessToken } : { token: manager.accessToken, body });
        assertError(response, 403, 'target_holds_unheld_permissions', `${method} ${path} ${JSON.stringify(body)}: ${response.status}`);
      }
      // Unchanged: still enabled, same permissions, the old password and token still work.
      const after = await ctx.server.request('GET', `/v1/admin/users/${target.id}`, { token: ctx.admin.accessToken });
      assert.equal(after.body.enabled, true);
      await login(ctx.server, target.username, target.password);
      assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: target.accessToken })).status, 200);
    }
    assert.deepEqual((await ctx.server.request('GET', `/v1/admin/users/${stronger.id}`, { token: ctx.admin.accessToken })).body.permissions, [
      'models:list',
      'models:read',
      'users:manage',
    ]);
    // A user holding no more than the manager can be administered (the rule is not a blanket refusal).
    const lesser = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    assert.equal((await ctx.server.request('PUT', `/v1/admin/users/${lesser.id}`, { token: manager.accessToken, body: { enabled: false } })).status, 200);
    assert.equal((await ctx.server.request('DELETE', `/v1/admin/users/${lesser.id}`, { token: manager.accessToken })).status, 204);
  });

  it('R31: nobody changes their own permissions, state or account through the admin routes', async () => {
    const manager = await createUser(ctx.server, ctx.admin.accessToken, ['users:manage', 'models:list']);
    for (const self of [manager, ctx.admin]) {
      const attempts: [string, string, unknown][] = [
        ['PUT', `/v1/admin/users/${self.id}`, { permissions: ['users:manage', 'models:list', 'models:read'] }],
        ['PUT', `/v1/admin/users/${self.id}`, { permissions: ['users:manage'] }],
        ['PUT', `/v1/admin/users/${self.id}/permissions`, { permissions: ['users:manage', 'models:list'] }],
        ['PUT', `/v1/admin/users/${self.id}`, { enabled: false }],
        ['DELETE', `/v1/admin/users/${self.id}`, undefined],
      ];
      for (const [method, path, body] of attempts) {
        const response = await ctx.server.request(method, path, body === undefined ? { token: self.accessToken } : { token: self.accessToken, body });
        assertError(response, 403, 'cannot_modify_self', `${self.username}: ${method} ${path} ${JSON.stringify(body)}`);
      }
    }
    assert.deepEqual((await ctx.server.request('GET', `/v1/admin/users/${manager.id}`, { token: ctx.admin.accessToken })).body.permissions, ['models:list', 'users:manage']);
  });

  it('R31: the last enabled admin cannot be removed, even by two admins removing each other at the same moment', async () => {
    // Its own server: which admin survives each race is up to the race, so the shared admin may not.
    await withTestServer(async (server) => {
      const enabledAdmins = () =>
        withDatabase(server.home, (db) =>
          db.column<string>({
            sqlite: "SELECT u.id FROM users u JOIN user_permissions p ON p.user_id = u.id WHERE u.enabled = 1 AND p.permission = 'admin'",
            postgres: "SELECT u.id FROM users u JOIN user_permissions p ON p.user_id = u.id WHERE u.enabled AND p.permission = 'admin'",
          }),
        );
      let first: LoggedInUser = await setupAdmin(server);
      const removals: [string, (target: string) => [string, string, unknown]][] = [
        ['disable', (target) => ['PUT', `/v1/admin/users/${target}`, { enabled: false }]],
        ['drop admin', (target) => ['PUT', `/v1/admin/users/${target}/permissions`, { permissions: ['models:list'] }]],
        ['delete', (target) => ['DELETE', `/v1/admin/users/${target}`, undefined]],
      ];
      for (const [what, removal] of removals) {
        const second = await createUser(server, first.accessToken, ['admin']);
        assert.equal((await enabledAdmins()).length, 2);
        const send = (caller: LoggedInUser, target: LoggedInUser) => {
          const [method, path, body] = removal(target.id);
          return server.request(method, path, body === undefined ? { token: caller.accessToken } : { token: caller.accessToken, body });
        };
        const [byFirst, bySecond] = await Promise.all([send(first, second), send(second, first)]);
        const statuses = [byFirst.status, bySecond.status];
        assert.equal(statuses.filter((s) => s === 200 || s === 204).length, 1, `${what}: ${statuses.join(',')} — ${byFirst.text} ${bySecond.text}`);
        for (const refused of [byFirst, bySecond].filter((r) => r.status !== 200 && r.status !== 204)) {
          // 409 last_admin when both requests were authorised before either change; 401 or 403 when the
          // loser's request was authenticated after the winner's change (its account disabled or
          // deleted, or its admin permission gone).
          assert.ok([401, 403, 409].includes(refused.status), `${what}: ${refused.status} ${refused.text}`);
          if (refused.status === 409) assert.equal(refused.body.error.code, 'last_admin');
          if (refused.status === 403) assert.equal(refused.body.error.code, 'permission_denied');
        }
        const remaining = await enabledAdmins();
        assert.equal(remaining.length, 1, `${what}: ${remaining.length} enabled admins remain`);
        // Continue with the survivor as "first".
        const survivor = remaining[0] === first.id ? first : second;
        first = { ...survivor, ...(await freshTokens(server, survivor)) };
      }
    });
  });

  it('R31: the last enabled admin cannot be removed: two removals authorised before either runs leave one admin (409 last_admin)', async () => {
    // Each request's headers (and so its authentication) reach the server first; the bodies follow
    // only once both are in, so both handlers run with principals that were admins when authorised.
    // The second handler must then see that its target is the last enabled admin.
    const enabledAdmins = async () =>
      Number(
        (
          await withDatabase(ctx.server.home, (db) =>
            db.column<number | string>({
              sqlite: "SELECT count(*) FROM users u JOIN user_permissions p ON p.user_id = u.id WHERE u.enabled = 1 AND p.permission = 'admin'",
              postgres: "SELECT count(*) FROM users u JOIN user_permissions p ON p.user_id = u.id WHERE u.enabled AND p.permission = 'admin'",
            }),
          )
        )[0],
      );
    const first = { ...ctx.admin, ...(await freshTokens(ctx.server, ctx.admin)) };
    for (const removal of [{ enabled: false }, { permissions: ['models:list'] }]) {
      const second = await createUser(ctx.server, first.accessToken, ['admin']);
      assert.equal(await enabledAdmins(), 2);
      const bothAuthorised = authorisedRequests([`/v1/admin/users/${second.id}`, `/v1/admin/users/${first.id}`]);
      const a = heldBodyRequest(ctx.server.baseUrl, 'PUT', `/v1/admin/users/${second.id}`, first.accessToken, removal);
      const b = heldBodyRequest(ctx.server.baseUrl, 'PUT', `/v1/admin/users/${first.id}`, second.accessToken, removal);
      await bothAuthorised;
      const byFirst = await a.finish();
      const bySecond = await b.finish();
      assert.equal(byFirst.status, 200, JSON.stringify(byFirst.body));
      assert.equal(bySecond.status, 409, JSON.stringify(bySecond.body));
      assert.equal((bySecond.body as { error: { code: string } }).error.code, 'last_admin');
      assert.equal(await enabledAdmins(), 1);
      const survivor = await ctx.server.request('GET', `/v1/admin/users/${first.id}`, { token: first.accessToken });
      assert.equal(survivor.body.enabled, true);
      assert.deepEqual(survivor.body.permissions, ['admin']);
      assert.equal((await ctx.server.request('DELETE', `/v1/admin/users/${second.id}`, { token: first.accessToken })).status, 204);
    }
  });

  it('R32: user A cannot read, reveal, change or delete user B\'s key (404/403), and B\'s key is unchanged', async () => {
    const a = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
    const b = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create', 'models:read']);
    const bKey = await createKey(ctx.server, b.accessToken, { name: 'b-key', description: 'belongs to B' });
    const aKey = await createKey(ctx.server, a.accessToken, { name: 'a-key' });
    const snapshot = (await ctx.server.request('GET', `/v1/admin/keys/${bKey.id}`, { token: ctx.admin.accessToken })).body;
    const missingId = randomUUID();

    for (const credential of [a.accessToken, aKey.key]) {
      const attempts: [string, string, unknown, number][] = [
        ['GET', `/v1/admin/keys/${bKey.id}`, undefined, 404],
        ['PUT', `/v1/admin/keys/${bKey.id}`, { enabled: false }, 404],
        ['PUT', `/v1/admin/keys/${bKey.id}`, { name: 'stolen', expires_at: new Date(Date.now() + 60_000).toISOString() }, 404],
        ['DELETE', `/v1/admin/keys/${bKey.id}`, undefined, 404],
        ['GET', `/v1/admin/keys/${bKey.id}/reveal`, undefined, 403],
        ['GET', `/v1/admin/keys/${bKey.id}/permissions`, undefined, 404],
        ['PUT', `/v1/admin/keys/${bKey.id}/permissions`, { model_permissions: [] }, 403],
        ['GET', `/v1/admin/keys?owner=${b.id}`, undefined, 403],
        ['POST', '/v1/admin/keys', { name: 'planted', owner: b.id }, 403],
      ];
      for (const [method, path, body, status] of attempts) {
        const response = await ctx.server.request(method, path, body === undefined ? { token: credential } : { token: credential, body });
        assert.equal(response.status, status, `${method} ${path}: ${response.status} ${response.text}`);
        assert.ok(!response.text.includes(bKey.key), 'B\'s plaintext leaked');
        assert.ok(!response.text.includes('belongs to B'), 'B\'s key details leaked');
        if (status === 404) {
          // Indistinguishable from a key that does not exist.
          const ghost = await ctx.server.request(method, path.replace(bKey.id, missingId), body === undefined ? { token: credential } : { token: credential, body });
          assert.equal(ghost.status, 404);
          assert.equal(ghost.text, response.text);
        }
      }
      const ownList = await ctx.server.request('GET', '/v1/admin/keys', { token: credential });
      assert.equal(ownList.status, 200);
      assert.deepEqual((ownList.body as { id: string }[]).map((k) => k.id), [aKey.id]);
    }

    // keys:manage without every permission of B: may see the key, not act on it.
    const keyManager = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create', 'keys:manage']);
    assert.equal((await ctx.server.request('GET', `/v1/admin/keys/${bKey.id}`, { token: keyManager.accessToken })).status, 200);
    for (const [method, path, body] of [
      ['PUT', `/v1/admin/keys/${bKey.id}`, { enabled: false }],
      ['DELETE', `/v1/admin/keys/${bKey.id}`, undefined],
      ['GET', `/v1/admin/keys/${bKey.id}/reveal`, undefined],
      ['PUT', `/v1/admin/keys/${bKey.id}/permissions`, { model_permissions: [] }],
      ['POST', '/v1/admin/keys', { name: 'planted', owner: b.id }],
    ] as [string, string, unknown][]) {
      const response = await ctx.server.request(method, path, body === undefined ? { token: keyManager.accessToken } : { token: keyManager.accessToken, body });
      assertError(response, 403, 'target_holds_unheld_permissions', `keys:manage ${method} ${path}: ${response.status}`);
      assert.ok(!response.text.includes(bKey.key));
    }

    const now = await ctx.server.request('GET', `/v1/admin/keys/${bKey.id}`, { token: ctx.admin.accessToken });
    assert.deepEqual({ ...now.body, last_used_at: null }, { ...snapshot, last_used_at: null });
    const bKeys = await ctx.server.request('GET', `/v1/admin/keys?owner=${b.id}`, { token: ctx.admin.accessToken });
    assert.deepEqual((bKeys.body as { id: string }[]).map((k) => k.id), [bKey.id]);
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: bKey.key })).status, 200);
  });

  it('R33: a token re-signed with the real secret and extra scopes is still governed by the database', async () => {
    const nobody = await createUser(ctx.server, ctx.admin.accessToken, []);
    const secret = await jwtSecret(ctx.server.home);
    const { header, payload } = decodeJwt(nobody.accessToken);
    assert.deepEqual(payload['scopes'], []);
    const widened = forgeJwt(header, {
      ...payload,
      jti: randomUUID(),
      scopes: ['admin', 'users:manage', 'keys:manage'],
      permissions: ['admin'],
      scope: 'admin',
      admin: true,
      role: 'admin',
    }, secret);
    const me = await ctx.server.request('GET', '/v1/auth/me', { token: widened });
    assert.equal(me.status, 200, 'the forged token should authenticate: only its claims are widened');
    assert.deepEqual(me.body.permissions, []);
    for (const [method, path] of [
      ['GET', '/v1/admin/users'],
      ['GET', '/v1/admin/keys'],
      ['POST', '/v1/admin/users'],
    ] as const) {
      const response = await ctx.server.request(method, path, { token: widened });
      assertError(response, 403, 'permission_denied', `${method} ${path}`);
    }
    // The other way round: an admin token whose scopes claim nothing keeps the admin's live power.
    const adminToken = decodeJwt(ctx.admin.accessToken);
    const narrowedClaims = forgeJwt(adminToken.header, { ...adminToken.payload, jti: randomUUID(), scopes: [] }, secret);
    assert.equal((await ctx.server.request('GET', '/v1/admin/users', { token: narrowedClaims })).status, 200);

    // A key naming `admin` in its own permissions never holds more than its owner.
    const key = await createKey(ctx.server, ctx.admin.accessToken, { name: 'r33', owner: nobody.id, permissions: ['admin'] });
    assert.deepEqual((await ctx.server.request('GET', '/v1/auth/me', { token: key.key })).body.permissions, []);
    assert.equal((await ctx.server.request('GET', '/v1/admin/users', { token: key.key })).status, 403);
  });
});

const validator = new ResponseValidator();

/**
 * Sends a request's headers and the first byte of its JSON body at once, and the rest on `finish()`,
 * so the server authenticates it long before its handler can run. The response is checked against
 * the contract like every other response of the suite.
 */
function heldBodyRequest(baseUrl: string, method: string, path: string, token: string, body: unknown) {
  const json = JSON.stringify(body);
  const request = httpRequest(new URL(path, baseUrl), {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) },
  });
  const answered = new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        const parsed: unknown = text === '' ? undefined : JSON.parse(text);
        const violation = validator.check(method, path, response.statusCode ?? 0, parsed);
        if (violation !== null) reject(new Error(`contract violation: ${violation}`));
        else resolve({ status: response.statusCode ?? 0, body: parsed });
      });
    });
  });
  request.flushHeaders();
  request.write(json.slice(0, 1));
  return {
    finish(): Promise<{ status: number; body: unknown }> {
      request.end(json.slice(1));
      return answered;
    },
  };
}

/**
 * Resolves once the in-process server has authorised and admitted a request to each of `paths`
 * (before reading its body), as its diagnostics channel reports.
 */
function authorisedRequests(paths: readonly string[]): Promise<void> {
  const waiting = new Set(paths);
  return new Promise((resolve) => {
    const listener = (message: unknown) => {
      const { request, admitted } = message as RequestAuthorisedMessage;
      if (admitted) waiting.delete(request.url);
      if (waiting.size > 0) return;
      unsubscribe(requestAuthorisedChannelName, listener);
      resolve();
    };
    subscribe(requestAuthorisedChannelName, listener);
  });
}

/** A fresh token pair for `user` (its old tokens may have been revoked). */
async function freshTokens(client: ContractClient, user: LoggedInUser): Promise<{ accessToken: string; refreshToken: string }> {
  const tokens = await login(client, user.username, user.password);
  return { accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
}

describe('security: fail closed (R34)', () => {
  it('R34: with the database locked, a revocation is answered 503 (never 200) and nothing is half-done', async () => {
    // In WAL mode a writer's lock blocks writers, not readers: reads keep being served from the last
    // committed state, which is correct. What must fail closed are the writes: a disable that cannot
    // be committed must never be reported as done. The server's busy timeout is 5 s, so the test
    // sends one request into the lock.
    await withTempHome('svc-r34-lock-', async (home) => {
      const child = await startServerProcess({ SVC_HOME: home });
      try {
        const client = contractClient(child.baseUrl);
        const owner = await setupAdmin(client);
        const target = await createUser(client, owner.accessToken, ['models:list']);
        const release = await holdWriteLock(home);
        try {
          const disable = await client.request('PUT', `/v1/admin/users/${target.id}`, { token: owner.accessToken, body: { enabled: false } });
          assertError(disable, 503, 'service_unavailable', `${disable.status} ${disable.text}`);
          assert.ok(!/SQLITE|locked|lock timeout|\n\s+at /i.test(disable.text), 'database internals in the answer');
        } finally {
          await release();
        }
        // After the lock: the user was not disabled half-way, and the disable now works.
        const user = await client.request('GET', `/v1/admin/users/${target.id}`, { token: owner.accessToken });
        assert.equal(user.body.enabled, true);
        assert.equal((await client.request('GET', '/v1/auth/me', { token: target.accessToken })).status, 200);
        assert.equal((await client.request('PUT', `/v1/admin/users/${target.id}`, { token: owner.accessToken, body: { enabled: false } })).status, 200);
        assert.equal((await client.request('GET', '/v1/auth/me', { token: target.accessToken })).status, 401);
      } finally {
        await child.kill();
      }
    });
  });

  // On PostgreSQL the corrupted file becomes a database that refuses every connection, and the
  // missing file a database dropped and created again, empty (database-access.ts).
  it('R34: with the database corrupted under a running server, every protected operation answers 5xx or 401, never 2xx', async () => {
    await withTempHome('svc-r34-corrupt-', async (home) => {
      const child = await startServerProcess({ SVC_HOME: home });
      try {
        const client = contractClient(child.baseUrl);
        const owner = await setupAdmin(client);
        const key = await createKey(client, owner.accessToken, { name: 'r34' });
        const ids = { userId: owner.id, keyId: key.id };
        // Warm every cache the server has: the token and the key were both just used.
        assert.equal((await client.request('GET', '/v1/auth/me', { token: owner.accessToken })).status, 200);
        assert.equal((await client.request('GET', '/v1/auth/me', { token: key.key })).status, 200);

        await breakDatabase(home);
        for (const spec of operationSpecs.filter((s) => !s.isPublic)) {
          for (const [who, credential] of [
            ['admin token', owner.accessToken],
            ['admin key', key.key],
          ] as const) {
            const response = await client.request(spec.method, concretePath(spec, ids), { token: credential });
            assert.ok(response.status >= 500 || response.status === 401, `${spec.method} ${spec.path} with the ${who}: ${response.status} ${response.text}`);
          }
        }
        const loginAttempt = await client.request('POST', '/v1/auth/login', { body: adminCredentials });
        assert.ok(loginAttempt.status >= 500 || loginAttempt.status === 401, `login: ${loginAttempt.status}`);
        // Liveness stays up (a restart would not mend the file); readiness takes the host out of rotation.
        const liveness = await client.request('GET', '/status');
        assert.equal(liveness.status, 200, `liveness: ${liveness.status}`);
        const readiness = await client.request('GET', '/ready');
        assert.ok(readiness.status >= 500, `readiness: ${readiness.status}`);
      } finally {
        await child.kill();
      }
    });
  });

  it('R34: with the database missing at start-up, old tokens and keys answer 401', async () => {
    await withTempHome('svc-r34-missing-', async (home) => {
      const first = await startTestServer({ home });
      const owner = await setupAdmin(first);
      const key = await createKey(first, owner.accessToken, { name: 'r34-missing' });
      await first.close();
      await replaceWithEmptyDatabase(home);

      await withTestServer({ home }, async (second) => {
        for (const credential of [owner.accessToken, key.key]) {
          const response = await second.request('GET', '/v1/admin/users', { token: credential });
          assert.equal(response.status, 401, `${response.status} ${response.text}`);
        }
        const refresh = await second.request('POST', '/v1/auth/refresh', { body: { refresh_token: owner.refreshToken } });
        assert.equal(refresh.status, 401);
        // The empty database is a first run again (an operator action: see the report).
        assert.equal((await second.request('GET', '/v1/admin/setup/status')).body.needs_setup, true);
      });
    });
  });
});
