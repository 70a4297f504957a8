import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminCredentials, startTestServer, type TestServer } from '../testing/index.js';

describe('health routes with authentication on (the default)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('GET /status answers ok with the version, without credentials', async () => {
    const response = await server.request('GET', '/status');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: 'ok', version: '3.0.0' });
  });

  it('sets a request id, no-store and nosniff on every answer', async () => {
    const response = await server.request('GET', '/status');
    assert.match(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  });

  it('GET /v1/cluster/auth reports that authentication is on', async () => {
    const response = await server.request('GET', '/v1/cluster/auth');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { auth: true });
  });

  it('refuses credentials in the query string even on a public route (400)', async () => {
    const response = await server.request('GET', '/status?api_key=sk-abcDEF1234567');
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'credentials_in_query');
  });

  it('needs credentials everywhere else', async () => {
    for (const path of ['/v1/admin/users', '/v1/auth/me', '/v1/admin/keys']) {
      const response = await server.request('GET', path);
      assert.equal(response.status, 401, path);
      assert.equal(response.body.error.code, 'missing_credentials');
    }
  });

  it('answers 404 not_found in the error shape for an unknown route', async () => {
    const response = await server.request('GET', '/v1/no-such-route');
    assert.equal(response.status, 404);
    assert.equal(response.body.error.code, 'not_found');
  });
});

describe('health routes with SVC_AUTH_ADVANCED=false', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { SVC_AUTH_ADVANCED: 'false' } });
  });
  after(() => server.close());

  it('GET /v1/cluster/auth reports that authentication is off', async () => {
    const response = await server.request('GET', '/v1/cluster/auth');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { auth: false });
  });

  it('serves GET /v1/admin/users without credentials', async () => {
    const response = await server.request('GET', '/v1/admin/users');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, []);
  });

  it('serves GET /v1/auth/me without credentials, as an anonymous caller holding everything', async () => {
    const response = await server.request('GET', '/v1/auth/me');
    assert.equal(response.status, 200);
    assert.equal(response.body.auth_type, 'none');
    assert.equal(response.body.api_key, null);
    assert.ok(response.body.permissions.includes('admin'));
  });

  it('serves user and key administration without credentials', async () => {
    const setup = await server.request('POST', '/v1/admin/setup', { body: adminCredentials });
    assert.equal(setup.status, 201);
    const created = await server.request('POST', '/v1/admin/users', { body: { username: 'open-door', password: 'nobody checked this passphrase' } });
    assert.equal(created.status, 201);
    const key = await server.request('POST', '/v1/admin/keys', { body: { name: 'for open-door', owner: created.body.id } });
    assert.equal(key.status, 201);
    assert.equal(key.body.user_id, created.body.id);
    assert.equal((await server.request('GET', '/v1/admin/keys')).body.length, 1);
  });

  it('asks for an owner when creating a key without an account (400)', async () => {
    const response = await server.request('POST', '/v1/admin/keys', { body: { name: 'whose?' } });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.param, 'owner');
  });
});
