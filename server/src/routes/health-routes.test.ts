import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { adminCredentials, assertError, testStorageBackend, useServer } from '../testing/index.js';

describe('health routes with authentication on (the default)', () => {
  const ctx = useServer();

  it('GET /status answers ok with the version, without credentials (on PostgreSQL with its change listener)', async () => {
    const response = await ctx.server.request('GET', '/status');
    assert.equal(response.status, 200);
    const { change_listener: listener, ...rest } = response.body;
    assert.deepEqual(rest, { status: 'ok', version: '3.0.0' });
    if (testStorageBackend() === 'sqlite') assert.equal(listener, undefined, 'SQLite has no LISTEN connection to report');
    else assert.equal(listener.listening, true);
  });

  it('GET /ready answers ready without credentials while the database answers, and is not audited', async () => {
    const response = await ctx.server.request('GET', '/ready');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: 'ready' });
    assert.equal(response.headers.get('cache-control'), 'no-store');
  });

  it('GET /ready refuses credentials in the query string like every public route (400)', async () => {
    const response = await ctx.server.request('GET', '/ready?api_key=sk-abcDEF1234567');
    assertError(response, 400, 'credentials_in_query');
  });

  it('sets a request id, no-store and nosniff on every answer', async () => {
    const response = await ctx.server.request('GET', '/status');
    assert.match(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  });

  it('GET /v1/cluster/auth reports that authentication is on', async () => {
    const response = await ctx.server.request('GET', '/v1/cluster/auth');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { auth: true });
  });

  it('refuses credentials in the query string even on a public route (400)', async () => {
    const response = await ctx.server.request('GET', '/status?api_key=sk-abcDEF1234567');
    assertError(response, 400, 'credentials_in_query');
  });

  it('needs credentials everywhere else', async () => {
    for (const path of ['/v1/admin/users', '/v1/auth/me', '/v1/admin/keys']) {
      const response = await ctx.server.request('GET', path);
      assertError(response, 401, 'missing_credentials', path);
    }
  });

  it('answers 404 not_found in the error shape for an unknown route', async () => {
    const response = await ctx.server.request('GET', '/v1/no-such-route');
    assertError(response, 404, 'not_found');
  });
});

describe('health routes with SVC_AUTH_ADVANCED=false', () => {
  const ctx = useServer({ env: { SVC_AUTH_ADVANCED: 'false' } });

  it('GET /v1/cluster/auth reports that authentication is off', async () => {
    const response = await ctx.server.request('GET', '/v1/cluster/auth');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { auth: false });
  });

  it('serves GET /v1/admin/users without credentials', async () => {
    const response = await ctx.server.request('GET', '/v1/admin/users');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, []);
  });

  it('serves GET /v1/auth/me without credentials, as an anonymous caller holding everything', async () => {
    const response = await ctx.server.request('GET', '/v1/auth/me');
    assert.equal(response.status, 200);
    assert.equal(response.body.auth_type, 'none');
    assert.equal(response.body.api_key, null);
    assert.ok(response.body.permissions.includes('admin'));
  });

  it('serves user and key administration without credentials', async () => {
    const setup = await ctx.server.request('POST', '/v1/admin/setup', { body: adminCredentials });
    assert.equal(setup.status, 201);
    const created = await ctx.server.request('POST', '/v1/admin/users', { body: { username: 'open-door', password: 'nobody checked this passphrase' } });
    assert.equal(created.status, 201);
    const key = await ctx.server.request('POST', '/v1/admin/keys', { body: { name: 'for open-door', owner: created.body.id } });
    assert.equal(key.status, 201);
    assert.equal(key.body.user_id, created.body.id);
    assert.equal((await ctx.server.request('GET', '/v1/admin/keys')).body.length, 1);
  });

  it('asks for an owner when creating a key without an account (400)', async () => {
    const response = await ctx.server.request('POST', '/v1/admin/keys', { body: { name: 'whose?' } });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.param, 'owner');
  });
});
