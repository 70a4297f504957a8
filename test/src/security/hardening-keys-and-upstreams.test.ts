/**
 * Issue 14, what an attacker found with a key and with `models:write`: H1 (a narrowed key minting a
 * wider one), H4 (server-side request forgery through `upstream_base_url`) and H8 (upstream details
 * shown to every `models:list` holder). Real servers, a real local upstream.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  assertError,
  createKey,
  createUser,
  startFakeUpstream,
  useServerWithAdmin,
  withTestServer,
  setupAdmin,
  type FakeUpstream,
} from '@svc/server/testing';
import { withDatabase } from './support.js';

const chat = { model: 'remote', messages: [{ role: 'user', content: 'hi' }] };

describe('hardening: keys bounded by the key that calls', () => {
  const ctx = useServerWithAdmin();
  let narrowKey: string;
  let narrowKeyId: string;
  let wideKeyId: string;
  beforeAll(async () => {
    const narrow = await createKey(ctx.server, ctx.admin.accessToken, {
      name: 'narrow',
      permissions: ['keys:create'],
      model_permissions: [{ permission_type: 'model_id', permission_value: 'chat-a' }],
    });
    narrowKey = narrow.key;
    narrowKeyId = narrow.id;
    wideKeyId = (await createKey(ctx.server, ctx.admin.accessToken, { name: 'wide' })).id;
  });

  it('H1: a narrowed key cannot mint a wider key: an omitted permissions list means the calling key\'s, not the owner\'s', async () => {
    const minted = await ctx.server.request('POST', '/v1/admin/keys', { token: narrowKey, body: { name: 'minted' } });
    assert.equal(minted.status, 201, minted.text);
    assert.deepEqual(minted.body.permissions, ['keys:create']);
    assert.deepEqual(minted.body.model_permissions, [{ permission_type: 'model_id', permission_value: 'chat-a' }]);
    assertError(await ctx.server.request('GET', '/v1/admin/users', { token: minted.body.key }), 403, 'permission_denied');
    const nulled = await ctx.server.request('POST', '/v1/admin/keys', { token: narrowKey, body: { name: 'minted-null', permissions: null } });
    assert.deepEqual(nulled.body.permissions, ['keys:create']);
    assertError(await ctx.server.request('POST', '/v1/admin/keys', { token: narrowKey, body: { name: 'x', permissions: ['admin'] } }), 403, 'cannot_grant_unheld_permissions');
    const everyModel = await ctx.server.request('POST', '/v1/admin/keys', {
      token: narrowKey,
      body: { name: 'x', model_permissions: [{ permission_type: 'all', permission_value: null }] },
    });
    assertError(everyModel, 403, 'cannot_grant_unheld_permissions');
  });

  it('H1: a narrowed key cannot widen itself (permissions: null) or change a wider sibling key', async () => {
    const widened = await ctx.server.request('PUT', `/v1/admin/keys/${narrowKeyId}`, { token: narrowKey, body: { permissions: null } });
    assert.equal(widened.status, 200, widened.text);
    assert.deepEqual(widened.body.permissions, ['keys:create'], 'null means the calling key\'s own set');
    assertError(await ctx.server.request('PUT', `/v1/admin/keys/${narrowKeyId}`, { token: narrowKey, body: { permissions: ['admin'] } }), 403, 'cannot_grant_unheld_permissions');
    assertError(await ctx.server.request('PUT', `/v1/admin/keys/${wideKeyId}`, { token: narrowKey, body: { name: 'renamed' } }), 403, 'target_holds_unheld_permissions');
    assertError(await ctx.server.request('DELETE', `/v1/admin/keys/${wideKeyId}`, { token: narrowKey }), 403, 'target_holds_unheld_permissions');
    const me = await ctx.server.request('GET', '/v1/auth/me', { token: narrowKey });
    assert.deepEqual(me.body.permissions, ['keys:create']);
  });
});

describe('hardening: upstream URLs', () => {
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await startFakeUpstream();
  });
  afterAll(() => upstream.close());

  it('H4: only administrators set an upstream URL; user-info, query, fragment, link-local and metadata addresses in any spelling are refused', async () => {
    await withTestServer({}, async (server) => {
      const admin = await setupAdmin(server);
      const operator = await createUser(server, admin.accessToken, ['models:write', 'models:list', 'models:read']);
      const launch = (token: string, base: string) => server.request('POST', '/v1/models', { token, body: { model_uid: 'remote', model_name: 'llama', upstream_base_url: base } });
      assertError(await launch(operator.accessToken, upstream.baseUrl), 403, 'permission_denied');
      const port = new URL(upstream.baseUrl).port;
      for (const base of [
        `http://user:secret@127.0.0.1:${port}/v1`,
        `http://127.0.0.1:${port}/v1?path=/admin`,
        `http://127.0.0.1:${port}/v1#x`,
        'http://169.254.169.254/latest',
        'http://[::ffff:169.254.169.254]/latest',
        'http://2852039166/latest',
        'http://0251.0376.0251.0376/latest',
        'http://[fe80::1]/v1',
        'http://0.0.0.0:80/v1',
        'http://100.100.100.200/v1',
      ]) {
        const refused = await launch(admin.accessToken, base);
        assertError(refused, 400, 'upstream_not_allowed');
        assert.equal(refused.body.error.param, 'upstream_base_url');
        assert.ok(!refused.text.includes('secret'), refused.text);
      }
      assert.equal((await launch(admin.accessToken, 'file:///etc/passwd')).status, 400);
      const launched = await launch(admin.accessToken, upstream.baseUrl);
      assert.equal(launched.status, 200, launched.text);
    });
  });

  it('H4: with SVC_UPSTREAM_ALLOWED the address is checked after DNS at connect time, and an upstream error body is never echoed', async () => {
    await withTestServer({ env: { SVC_UPSTREAM_ALLOWED: '10.0.0.0/8,169.254.0.0/8' } }, async (server) => {
      const admin = await setupAdmin(server);
      const port = new URL(upstream.baseUrl).port;
      const launch = (base: string, uid = 'remote') => server.request('POST', '/v1/models', { token: admin.accessToken, body: { model_uid: uid, model_name: 'llama', upstream_base_url: base } });
      assertError(await launch(upstream.baseUrl), 400, 'upstream_not_allowed');
      // A /8 around link-local is not an explicit listing of the metadata address.
      assertError(await launch('http://169.254.169.254/v1'), 400, 'upstream_not_allowed');
      // A host name passes the launch; its resolved address (127.0.0.1) is refused when svc connects.
      assert.equal((await launch(`http://localhost:${port}/v1`)).status, 200);
      upstream.received.length = 0;
      const refused = await server.request('POST', '/v1/chat/completions', { token: admin.accessToken, body: chat });
      assertError(refused, 502, 'upstream_unreachable');
      assert.match(refused.body.detail, /not allowed/);
      assert.equal(upstream.received.length, 0, 'no request reached the refused address');
    });
    await withTestServer({ env: { SVC_UPSTREAM_ALLOWED: 'localhost,127.0.0.1' } }, async (server) => {
      const admin = await setupAdmin(server);
      const port = new URL(upstream.baseUrl).port;
      const launched = await server.request('POST', '/v1/models', { token: admin.accessToken, body: { model_uid: 'remote', model_name: 'llama', upstream_base_url: `http://localhost:${port}/v1` } });
      assert.equal(launched.status, 200, launched.text);
      upstream.mode = { kind: 'error', status: 500, message: 'internal page: root:x:0:0' };
      const failed = await server.request('POST', '/v1/chat/completions', { token: admin.accessToken, body: chat });
      assertError(failed, 502, 'upstream_error');
      assert.ok(!failed.text.includes('root:x'), failed.text);
      upstream.mode = { kind: 'ok' };
      assert.equal((await server.request('POST', '/v1/chat/completions', { token: admin.accessToken, body: chat })).status, 200);
    });
  });

  it('H8: upstream details are shown only to administrators, never with user-info', async () => {
    await withTestServer({}, async (server) => {
      const admin = await setupAdmin(server);
      const reader = await createUser(server, admin.accessToken, ['models:list', 'models:read']);
      const launched = await server.request('POST', '/v1/models', { token: admin.accessToken, body: { model_uid: 'remote', model_name: 'llama', upstream_base_url: upstream.baseUrl } });
      assert.equal(launched.status, 200, launched.text);
      // A model stored before user-info was refused.
      assert.equal(await withDatabase(server.home, (db) => db.run("UPDATE models SET upstream_base_url = 'http://svc:hunter2hunter2@127.0.0.1:9/v1' WHERE uid = 'remote'")), 1);
      const forReader = await server.request('GET', '/v1/models', { token: reader.accessToken });
      assert.equal(forReader.body.data[0].upstream, null);
      assert.equal((await server.request('GET', '/v1/models/remote', { token: reader.accessToken })).body.upstream, null);
      const forAdmin = await server.request('GET', '/v1/models/remote', { token: admin.accessToken });
      assert.equal(forAdmin.body.upstream.base_url, 'http://127.0.0.1:9/v1');
      const logs = await server.request('GET', '/v1/cluster/logs', { token: admin.accessToken });
      assert.ok(!logs.text.includes('hunter2hunter2'));
    });
  });
});
