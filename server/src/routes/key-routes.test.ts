import assert from 'node:assert/strict';
import { beforeAll, describe, it } from 'vitest';
import {
  API_KEY_FORMAT,
  assertError,
  assertLegacyDeprecation,
  createKey,
  createUser,
  ManualClock,
  setupAdmin,
  useServerWithAdmin,
  withTempHome,
  withTestServer,
  type LoggedInUser,
} from '../testing/index.js';
import { openStorage, storageConfigOf } from '../storage/open-storage.js';

const EVERY_MODEL = [{ permission_type: 'all', permission_value: null }];

describe('POST /v1/admin/keys', () => {
  const ctx = useServerWithAdmin();
  let creator: LoggedInUser;
  let keyOfficer: LoggedInUser;
  beforeAll(async () => {
    creator = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create', 'models:list']);
    keyOfficer = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create', 'keys:manage']);
  });

  it('creates a key for the caller (201), showing the plaintext once in the sk-svc- format', async () => {
    const response = await ctx.server.request('POST', '/v1/admin/keys', { token: creator.accessToken, body: { name: 'notebook', description: 'my laptop' } });
    assert.equal(response.status, 201);
    const key = response.body;
    assert.match(key.key, API_KEY_FORMAT);
    assert.equal(key.prefix, key.key_prefix);
    assert.equal(key.key_prefix, key.key.slice(0, 11));
    assert.equal(key.user_id, creator.id);
    assert.equal(key.owner_username, creator.username);
    assert.equal(key.name, 'notebook');
    assert.equal(key.description, 'my laptop');
    assert.equal(key.enabled, true);
    assert.equal(key.expires_at, null);
    assert.equal(key.last_used_at, null);
    assert.deepEqual(key.model_permissions, EVERY_MODEL);
    assert.equal(key.permissions, null);
    assert.equal(key.revealable, true);
    const me = await ctx.server.request('GET', '/v1/auth/me', { token: key.key });
    assert.equal(me.status, 200);
    assert.equal(me.body.id, creator.id);
  });

  it('never shows the plaintext again: neither in the listing nor in the key itself', async () => {
    const key = await createKey(ctx.server, creator.accessToken, { name: 'secret' });
    const list = await ctx.server.request('GET', '/v1/admin/keys', { token: creator.accessToken });
    assert.ok(list.body.some((k: { id: string }) => k.id === key.id));
    assert.ok(!list.text.includes(key.key));
    assert.ok(list.body.every((k: Record<string, unknown>) => !('key' in k)));
    const one = await ctx.server.request('GET', `/v1/admin/keys/${key.id}`, { token: creator.accessToken });
    assert.ok(!one.text.includes(key.key));
    const adminList = await ctx.server.request('GET', '/v1/admin/keys', { token: ctx.admin.accessToken });
    assert.ok(!adminList.text.includes(key.key));
  });

  it('gives every key a distinct plaintext', async () => {
    const keys = await Promise.all([1, 2, 3].map(() => createKey(ctx.server, creator.accessToken)));
    assert.equal(new Set(keys.map((k) => k.key)).size, 3);
  });

  it('creates a key for another user only with keys:manage (else 403 permission_denied)', async () => {
    const refused = await ctx.server.request('POST', '/v1/admin/keys', { token: creator.accessToken, body: { name: 'for admin', owner: ctx.admin.id } });
    assertError(refused, 403, 'permission_denied');
    const created = await ctx.server.request('POST', '/v1/admin/keys', { token: ctx.admin.accessToken, body: { name: 'for creator', owner: creator.id } });
    assert.equal(created.status, 201);
    assert.equal(created.body.user_id, creator.id);
    const me = await ctx.server.request('GET', '/v1/auth/me', { token: created.body.key });
    assert.equal(me.body.id, creator.id);
  });

  it('answers 404 user_not_found for an unknown owner', async () => {
    const response = await ctx.server.request('POST', '/v1/admin/keys', { token: ctx.admin.accessToken, body: { name: 'orphan', owner: 'no-such-user' } });
    assertError(response, 404, 'user_not_found');
  });

  it('refuses a key for an owner holding permissions the caller lacks with 403 target_holds_unheld_permissions', async () => {
    const response = await ctx.server.request('POST', '/v1/admin/keys', { token: keyOfficer.accessToken, body: { name: 'admin power', owner: ctx.admin.id } });
    assertError(response, 403, 'target_holds_unheld_permissions');
  });

  it('refuses an expiry in the past with 400', async () => {
    const response = await ctx.server.request('POST', '/v1/admin/keys', {
      token: creator.accessToken,
      body: { name: 'already dead', expires_at: new Date(Date.now() - 60_000).toISOString() },
    });
    assertError(response, 400, 'invalid_request');
    assert.equal(response.body.error.param, 'expires_at');
  });

  it('stores an expiry in the future', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000);
    const key = await createKey(ctx.server, creator.accessToken, { name: 'tomorrow', expires_at: expiresAt.toISOString() });
    assert.equal(key.expires_at, expiresAt.toISOString());
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
  });

  it('treats an empty model_permissions list on creation as every model', async () => {
    const key = await createKey(ctx.server, creator.accessToken, { name: 'all models', model_permissions: [] });
    assert.deepEqual(key.model_permissions, EVERY_MODEL);
    const chosen = [
      { permission_type: 'model_id', permission_value: 'qwen-chat' },
      { permission_type: 'model_type', permission_value: 'embedding' },
    ] as const;
    const restricted = await createKey(ctx.server, creator.accessToken, { name: 'some models', model_permissions: [...chosen] });
    assert.deepEqual(restricted.model_permissions, chosen);
  });

  it('accepts narrowing permissions the caller holds, mapping legacy names with a Deprecation header', async () => {
    const response = await ctx.server.request('POST', '/v1/admin/keys', {
      token: ctx.admin.accessToken,
      body: { name: 'legacy scopes', permissions: ['models:start', 'models:list'] },
    });
    assert.equal(response.status, 201);
    assert.deepEqual(response.body.permissions, ['models:list', 'models:write']);
    assertLegacyDeprecation(response);
  });

  it('refuses narrowing permissions the caller does not hold with 403 cannot_grant_unheld_permissions', async () => {
    const response = await ctx.server.request('POST', '/v1/admin/keys', { token: creator.accessToken, body: { name: 'wider', permissions: ['users:manage'] } });
    assertError(response, 403, 'cannot_grant_unheld_permissions');
  });

  it('needs keys:create: keys:manage alone, or nothing, is refused', async () => {
    const managerOnly = await createUser(ctx.server, ctx.admin.accessToken, ['keys:manage']);
    assertError(await ctx.server.request('POST', '/v1/admin/keys', { token: managerOnly.accessToken, body: { name: 'x' } }), 403, 'permission_denied');
    assert.equal((await ctx.server.request('POST', '/v1/admin/keys', { body: { name: 'x' } })).status, 401);
  });

  it('refuses bad fields with 400', async () => {
    const bodies = [{ name: '' }, { name: 'x', owner: 'not/an id' }, { name: 'x', expires_at: 'tomorrow' }, { name: 'x', expires_at: '2099-02-30' }, { name: 'x', unknown: 1 }, { name: 'x', model_permissions: [{ permission_type: 'model_type', permission_value: 'spaceship' }] }];
    for (const body of bodies) {
      assert.equal((await ctx.server.request('POST', '/v1/admin/keys', { token: creator.accessToken, body })).status, 400, JSON.stringify(body));
    }
  });
});

describe('GET /v1/admin/keys and /v1/admin/keys/{key_id}', () => {
  const clock = new ManualClock();
  const ctx = useServerWithAdmin({ clock });
  let alice: LoggedInUser;
  let bob: LoggedInUser;
  const keyIds: Record<string, string> = {};
  beforeAll(async () => {
    alice = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
    bob = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
    keyIds['admin'] = (await createKey(ctx.server, ctx.admin.accessToken, { name: 'admin key' })).id;
    keyIds['alice1'] = (await createKey(ctx.server, alice.accessToken, { name: 'alice first' })).id;
    clock.advance(5); // creation times are milliseconds: keep the two apart so "newest first" is defined
    keyIds['alice2'] = (await createKey(ctx.server, alice.accessToken, { name: 'alice second' })).id;
    keyIds['bob'] = (await createKey(ctx.server, bob.accessToken, { name: 'bob key' })).id;
  });

  it('lists only the caller\'s own keys for a keys:create caller, newest first', async () => {
    const response = await ctx.server.request('GET', '/v1/admin/keys', { token: alice.accessToken });
    assert.equal(response.status, 200);
    assert.deepEqual(
      response.body.map((k: { id: string }) => k.id),
      [keyIds['alice2'], keyIds['alice1']],
    );
    const filtered = await ctx.server.request('GET', `/v1/admin/keys?owner=${alice.id}`, { token: alice.accessToken });
    assert.equal(filtered.body.length, 2);
  });

  it('refuses a keys:create caller asking for another owner\'s keys with 403', async () => {
    assertError(await ctx.server.request('GET', `/v1/admin/keys?owner=${bob.id}`, { token: alice.accessToken }), 403, 'permission_denied');
  });

  it('lists every key with keys:manage, or one owner\'s with ?owner=', async () => {
    const all = await ctx.server.request('GET', '/v1/admin/keys', { token: ctx.admin.accessToken });
    assert.deepEqual(new Set(all.body.map((k: { id: string }) => k.id)), new Set(Object.values(keyIds)));
    const bobs = await ctx.server.request('GET', `/v1/admin/keys?owner=${bob.id}`, { token: ctx.admin.accessToken });
    assert.deepEqual(bobs.body.map((k: { id: string }) => k.id), [keyIds['bob']]);
    assert.equal(bobs.body[0].owner_username, bob.username);
    const nobody = await ctx.server.request('GET', '/v1/admin/keys?owner=no-such-user', { token: ctx.admin.accessToken });
    assert.deepEqual(nobody.body, []);
  });

  it('gets one\'s own key, and anyone\'s with keys:manage', async () => {
    const own = await ctx.server.request('GET', `/v1/admin/keys/${keyIds['alice1']}`, { token: alice.accessToken });
    assert.equal(own.status, 200);
    assert.equal(own.body.name, 'alice first');
    const managed = await ctx.server.request('GET', `/v1/admin/keys/${keyIds['bob']}`, { token: ctx.admin.accessToken });
    assert.equal(managed.status, 200);
    assert.equal(managed.body.user_id, bob.id);
  });

  it('hides another user\'s key from a keys:create caller with 404, like an unknown key', async () => {
    for (const id of [keyIds['bob'], keyIds['admin'], 'no-such-key']) {
      for (const path of [`/v1/admin/keys/${id}`, `/v1/admin/keys/${id}/permissions`]) {
        assertError(await ctx.server.request('GET', path, { token: alice.accessToken }), 404, 'api_key_not_found');
      }
    }
  });

  it('needs keys:create or keys:manage', async () => {
    const nobody = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    assertError(await ctx.server.request('GET', '/v1/admin/keys', { token: nobody.accessToken }), 403, 'permission_denied');
    assertError(await ctx.server.request('GET', `/v1/admin/keys/${keyIds['admin']}`, { token: nobody.accessToken }), 403, 'permission_denied');
  });
});

describe('PUT /v1/admin/keys/{key_id}', () => {
  const ctx = useServerWithAdmin();
  let creator: LoggedInUser;
  let keyManager: LoggedInUser;
  beforeAll(async () => {
    creator = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create', 'models:list', 'models:read']);
    keyManager = await createUser(ctx.server, ctx.admin.accessToken, ['keys:manage']);
  });

  it('changes name, description, expiry and narrowing permissions of one\'s own key', async () => {
    const key = await createKey(ctx.server, creator.accessToken);
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const response = await ctx.server.request('PUT', `/v1/admin/keys/${key.id}`, {
      token: creator.accessToken,
      body: { name: 'renamed', description: 'described', expires_at: expiresAt, permissions: ['models:list'] },
    });
    assert.equal(response.status, 200);
    assert.equal(response.body.name, 'renamed');
    assert.equal(response.body.description, 'described');
    assert.equal(response.body.expires_at, expiresAt);
    assert.deepEqual(response.body.permissions, ['models:list']);
    assert.deepEqual((await ctx.server.request('GET', '/v1/auth/me', { token: key.key })).body.permissions, ['models:list']);

    const cleared = await ctx.server.request('PUT', `/v1/admin/keys/${key.id}`, {
      token: creator.accessToken,
      body: { description: null, expires_at: null, permissions: null },
    });
    assert.equal(cleared.body.description, null);
    assert.equal(cleared.body.expires_at, null);
    assert.equal(cleared.body.permissions, null);
    assert.equal(cleared.body.name, 'renamed');
    assert.deepEqual((await ctx.server.request('GET', '/v1/auth/me', { token: key.key })).body.permissions, ['models:list', 'models:read', 'keys:create']);
  });

  it('refuses an expiry in the past with 400', async () => {
    const key = await createKey(ctx.server, creator.accessToken);
    const response = await ctx.server.request('PUT', `/v1/admin/keys/${key.id}`, {
      token: creator.accessToken,
      body: { expires_at: new Date(Date.now() - 1000).toISOString() },
    });
    assertError(response, 400, 'invalid_request');
  });

  it('lets only keys:manage change model restrictions', async () => {
    const key = await createKey(ctx.server, creator.accessToken);
    const restriction = [{ permission_type: 'model_id', permission_value: 'qwen-chat' }];
    const refused = await ctx.server.request('PUT', `/v1/admin/keys/${key.id}`, { token: creator.accessToken, body: { model_permissions: restriction } });
    assertError(refused, 403, 'permission_denied');
    const allowed = await ctx.server.request('PUT', `/v1/admin/keys/${key.id}`, { token: ctx.admin.accessToken, body: { model_permissions: restriction } });
    assert.equal(allowed.status, 200);
    assert.deepEqual(allowed.body.model_permissions, restriction);
  });

  it('disables a key: its next request answers 401 api_key_disabled; enabling restores it', async () => {
    const key = await createKey(ctx.server, creator.accessToken);
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
    const disabled = await ctx.server.request('PUT', `/v1/admin/keys/${key.id}`, { token: creator.accessToken, body: { enabled: false } });
    assert.equal(disabled.status, 200);
    assert.equal(disabled.body.enabled, false);
    const refused = await ctx.server.request('GET', '/v1/auth/me', { token: key.key });
    assertError(refused, 401, 'api_key_disabled');
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
    await ctx.server.request('PUT', `/v1/admin/keys/${key.id}`, { token: creator.accessToken, body: { enabled: true } });
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
  });

  it('hides another user\'s key from a keys:create caller (404)', async () => {
    const adminKey = await createKey(ctx.server, ctx.admin.accessToken);
    assertError(await ctx.server.request('PUT', `/v1/admin/keys/${adminKey.id}`, { token: creator.accessToken, body: { enabled: false } }), 404, 'api_key_not_found');
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: adminKey.key })).status, 200);
  });

  it('refuses a keys:manage caller changing the key of an owner holding more (403 target_holds_unheld_permissions)', async () => {
    const adminKey = await createKey(ctx.server, ctx.admin.accessToken);
    const response = await ctx.server.request('PUT', `/v1/admin/keys/${adminKey.id}`, { token: keyManager.accessToken, body: { enabled: false } });
    assertError(response, 403, 'target_holds_unheld_permissions');
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: adminKey.key })).status, 200);
  });

  it('answers 404 for an unknown key and 400 for an empty change', async () => {
    assertError(await ctx.server.request('PUT', '/v1/admin/keys/no-such-key', { token: ctx.admin.accessToken, body: { enabled: false } }), 404, 'api_key_not_found');
    const key = await createKey(ctx.server, creator.accessToken);
    assert.equal((await ctx.server.request('PUT', `/v1/admin/keys/${key.id}`, { token: creator.accessToken, body: {} })).status, 400);
  });
});

describe('API key expiry', () => {
  const clock = new ManualClock();
  const ctx = useServerWithAdmin({ clock });

  it('refuses a key with 401 api_key_expired once its expiry passes', async () => {
    const key = await createKey(ctx.server, ctx.admin.accessToken, { name: 'short-lived', expires_at: new Date(clock.now() + 2000).toISOString() });
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: key.key })).status, 200, 'a key works before it expires');
    clock.advance(1999);
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: key.key })).status, 200, 'a key works until the millisecond it expires');
    clock.advance(1);
    assertError(await ctx.server.request('GET', '/v1/auth/me', { token: key.key }), 401, 'api_key_expired');
    const listed = await ctx.server.request('GET', `/v1/admin/keys/${key.id}`, { token: ctx.admin.accessToken });
    assert.equal(listed.status, 200, 'an expired key is still listed');
  });
});

describe('DELETE /v1/admin/keys/{key_id}', () => {
  const ctx = useServerWithAdmin();
  let creator: LoggedInUser;
  beforeAll(async () => {
    creator = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
  });

  it('deletes one\'s own key (204): its next request answers 401 invalid_api_key', async () => {
    const key = await createKey(ctx.server, creator.accessToken);
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
    const response = await ctx.server.request('DELETE', `/v1/admin/keys/${key.id}`, { token: creator.accessToken });
    assert.equal(response.status, 204);
    assertError(await ctx.server.request('GET', '/v1/auth/me', { token: key.key }), 401, 'invalid_api_key');
    assertError(await ctx.server.request('GET', `/v1/admin/keys/${key.id}`, { token: creator.accessToken }), 404, 'api_key_not_found');
    assertError(await ctx.server.request('DELETE', `/v1/admin/keys/${key.id}`, { token: creator.accessToken }), 404, 'api_key_not_found');
  });

  it('deletes anyone\'s key with keys:manage', async () => {
    const key = await createKey(ctx.server, creator.accessToken);
    assert.equal((await ctx.server.request('DELETE', `/v1/admin/keys/${key.id}`, { token: ctx.admin.accessToken })).status, 204);
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: key.key })).status, 401);
  });

  it('hides another user\'s key from a keys:create caller (404) and leaves it working', async () => {
    const adminKey = await createKey(ctx.server, ctx.admin.accessToken);
    assertError(await ctx.server.request('DELETE', `/v1/admin/keys/${adminKey.id}`, { token: creator.accessToken }), 404, 'api_key_not_found');
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: adminKey.key })).status, 200);
  });
});

describe('GET /v1/admin/keys/{key_id}/reveal', () => {
  const ctx = useServerWithAdmin();
  let creator: LoggedInUser;
  let keyManager: LoggedInUser;
  let plain: LoggedInUser;
  beforeAll(async () => {
    creator = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create', 'models:list']);
    keyManager = await createUser(ctx.server, ctx.admin.accessToken, ['keys:manage']);
    plain = await createUser(ctx.server, ctx.admin.accessToken, []);
  });

  it('returns the same plaintext as creation, with Cache-Control: no-store', async () => {
    const key = await createKey(ctx.server, creator.accessToken);
    const response = await ctx.server.request('GET', `/v1/admin/keys/${key.id}/reveal`, { token: ctx.admin.accessToken });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { id: key.id, key: key.key });
    assert.equal(response.headers.get('cache-control'), 'no-store');
  });

  it('refuses a keys:create-only caller, even for their own key (403)', async () => {
    const key = await createKey(ctx.server, creator.accessToken);
    assertError(await ctx.server.request('GET', `/v1/admin/keys/${key.id}/reveal`, { token: creator.accessToken }), 403, 'permission_denied');
  });

  it('refuses a keys:manage-only caller an admin\'s key with 403 target_holds_unheld_permissions', async () => {
    const key = await createKey(ctx.server, ctx.admin.accessToken);
    const response = await ctx.server.request('GET', `/v1/admin/keys/${key.id}/reveal`, { token: keyManager.accessToken });
    assertError(response, 403, 'target_holds_unheld_permissions');
    assert.ok(!response.text.includes(key.key));
  });

  it('lets a keys:manage-only caller reveal the key of a user holding no more than it', async () => {
    const key = await createKey(ctx.server, ctx.admin.accessToken, { name: 'for plain', owner: plain.id });
    const response = await ctx.server.request('GET', `/v1/admin/keys/${key.id}/reveal`, { token: keyManager.accessToken });
    assert.equal(response.status, 200);
    assert.equal(response.body.key, key.key);
  });

  it('answers 404 for an unknown key', async () => {
    assertError(await ctx.server.request('GET', '/v1/admin/keys/no-such-key/reveal', { token: ctx.admin.accessToken }), 404, 'api_key_not_found');
  });
});

describe('reveal when the stored ciphertext cannot be opened', () => {
  it('answers 409 encryption_key_mismatch after the encryption key changed, while the key still authenticates', async () => {
    await withTempHome('svc-reveal-test-', async (home) => {
      const key = await withTestServer({ home }, async (first) => {
        const admin = await setupAdmin(first);
        return createKey(first, admin.accessToken, { name: 'before the new key' });
      });
      // A deliberate change of key: the start that takes it replaces the recorded fingerprints.
      await withTestServer({ home, env: { SVC_AUTH_ENCRYPTION_KEY: 'n'.repeat(64) }, replaceSecretFingerprints: true }, async (second) => {
        const me = await second.request('GET', '/v1/auth/me', { token: key.key });
        assert.equal(me.status, 200, 'lookup does not depend on the encryption key');
        const listed = await second.request('GET', `/v1/admin/keys/${key.id}`, { token: key.key });
        assert.equal(listed.body.revealable, false);
        const response = await second.request('GET', `/v1/admin/keys/${key.id}/reveal`, { token: key.key });
        assertError(response, 409, 'encryption_key_mismatch');
        const fresh = await createKey(second, key.key, { name: 'under the new key' });
        assert.equal(fresh.revealable, true);
        assert.equal((await second.request('GET', `/v1/admin/keys/${fresh.id}/reveal`, { token: key.key })).body.key, fresh.key);
      });
    });
  });

  it('answers 409 api_key_undecryptable for a damaged ciphertext, while the key still authenticates', async () => {
    await withTestServer(async (server) => {
      const admin = await setupAdmin(server);
      const key = await createKey(server, admin.accessToken);
      // Damaged behind the server's back, through a storage of its own (either backend).
      const storage = await openStorage(storageConfigOf(server.config));
      try {
        const stored = await storage.keys.findById(key.id);
        assert.ok(stored !== null);
        const damaged = Buffer.from(stored.ciphertext);
        damaged[damaged.length - 1] = (damaged[damaged.length - 1] as number) ^ 0xff;
        await storage.keys.replaceCiphertext(key.id, damaged, stored.encryptionKeyId, Date.now());
      } finally {
        await storage.close();
      }
      const response = await server.request('GET', `/v1/admin/keys/${key.id}/reveal`, { token: admin.accessToken });
      assertError(response, 409, 'api_key_undecryptable');
      assert.equal((await server.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
    });
  });
});

describe('GET and PUT /v1/admin/keys/{key_id}/permissions', () => {
  const ctx = useServerWithAdmin();
  let creator: LoggedInUser;
  beforeAll(async () => {
    creator = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
  });

  it('reads a new key\'s restrictions as every model', async () => {
    const key = await createKey(ctx.server, creator.accessToken);
    const response = await ctx.server.request('GET', `/v1/admin/keys/${key.id}/permissions`, { token: creator.accessToken });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { model_permissions: EVERY_MODEL });
  });

  it('replaces them with keys:manage; an empty list is stored as an empty list', async () => {
    const key = await createKey(ctx.server, creator.accessToken);
    const chosen = [
      { permission_type: 'model_id', permission_value: 'qwen-chat' },
      { permission_type: 'model_type', permission_value: 'LLM' },
    ];
    const set = await ctx.server.request('PUT', `/v1/admin/keys/${key.id}/permissions`, { token: ctx.admin.accessToken, body: { model_permissions: chosen } });
    assert.equal(set.status, 200);
    assert.deepEqual(set.body, { model_permissions: chosen });
    const emptied = await ctx.server.request('PUT', `/v1/admin/keys/${key.id}/permissions`, { token: ctx.admin.accessToken, body: { model_permissions: [] } });
    assert.deepEqual(emptied.body, { model_permissions: [] });
    const read = await ctx.server.request('GET', `/v1/admin/keys/${key.id}/permissions`, { token: creator.accessToken });
    assert.deepEqual(read.body, { model_permissions: [] });
    assert.deepEqual((await ctx.server.request('GET', `/v1/admin/keys/${key.id}`, { token: creator.accessToken })).body.model_permissions, []);
  });

  it('refuses a keys:create-only caller (403) and answers 404 for an unknown key', async () => {
    const key = await createKey(ctx.server, creator.accessToken);
    const body = { model_permissions: EVERY_MODEL };
    assertError(await ctx.server.request('PUT', `/v1/admin/keys/${key.id}/permissions`, { token: creator.accessToken, body }), 403, 'permission_denied');
    assertError(await ctx.server.request('PUT', '/v1/admin/keys/no-such-key/permissions', { token: ctx.admin.accessToken, body }), 404, 'api_key_not_found');
    assertError(await ctx.server.request('GET', '/v1/admin/keys/no-such-key/permissions', { token: ctx.admin.accessToken }), 404, 'api_key_not_found');
  });
});

describe('authenticating with an API key', () => {
  const ctx = useServerWithAdmin();

  it('narrows an admin\'s key with permissions [models:list] to exactly that', async () => {
    const key = await createKey(ctx.server, ctx.admin.accessToken, { name: 'list only', permissions: ['models:list'] });
    assert.deepEqual(key.permissions, ['models:list']);
    const me = await ctx.server.request('GET', '/v1/auth/me', { token: key.key });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body.permissions, ['models:list']);
    assert.deepEqual(me.body.api_key, { id: key.id, name: 'list only', key_prefix: key.key_prefix });
    const createUserWithKey = await ctx.server.request('POST', '/v1/admin/users', {
      token: key.key,
      body: { username: 'via-narrow-key', password: 'a perfectly long passphrase' },
    });
    assertError(createUserWithKey, 403, 'permission_denied');
    assertError(await ctx.server.request('GET', '/v1/admin/keys', { token: key.key }), 403, 'permission_denied');
  });

  it('carries the owner\'s full permissions when the key names none', async () => {
    const key = await createKey(ctx.server, ctx.admin.accessToken);
    assert.deepEqual((await ctx.server.request('GET', '/v1/auth/me', { token: key.key })).body.permissions, ['admin']);
    assert.equal((await ctx.server.request('GET', '/v1/admin/users', { token: key.key })).status, 200);
  });

  it('refuses a key with a broken checksum with 401 invalid_api_key', async () => {
    const key = await createKey(ctx.server, ctx.admin.accessToken);
    const last = key.key.at(-1) as string;
    const broken = key.key.slice(0, -1) + (last === 'a' ? 'b' : 'a');
    const response = await ctx.server.request('GET', '/v1/auth/me', { token: broken });
    assertError(response, 401, 'invalid_api_key');
    assert.equal(response.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
  });

  it('refuses an unknown key of the legacy shape and an unknown well-formed key with 401 invalid_api_key', async () => {
    assertError(await ctx.server.request('GET', '/v1/auth/me', { token: 'sk-abcDEF1234567' }), 401, 'invalid_api_key');
    const key = await createKey(ctx.server, ctx.admin.accessToken);
    await ctx.server.request('DELETE', `/v1/admin/keys/${key.id}`, { token: ctx.admin.accessToken });
    assertError(await ctx.server.request('GET', '/v1/auth/me', { token: key.key }), 401, 'invalid_api_key');
    assertError(await ctx.server.request('GET', '/v1/auth/me', { token: 'sk-' }), 401, 'invalid_api_key');
  });

  it('records when a key was last used', async () => {
    const key = await createKey(ctx.server, ctx.admin.accessToken);
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
    // The write is best effort and off the request's path: wait for it, not for a time.
    await ctx.server.backgroundWritesSettled();
    const listed = await ctx.server.request('GET', `/v1/admin/keys/${key.id}`, { token: ctx.admin.accessToken });
    assert.equal(typeof listed.body.last_used_at, 'string');
  });
});
