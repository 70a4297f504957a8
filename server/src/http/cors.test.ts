import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { loadConfig } from '../config.js';
import { assertError, useServer, useServerWithAdmin } from '../testing/index.js';

const APP = 'https://app.example.com';
const OTHER = 'https://evil.example';

/** A browser's preflight for a `method` call carrying `headers`, from `origin`. */
function preflight(baseUrl: string, path: string, origin: string, method = 'PUT', headers = 'authorization,content-type'): Promise<Response> {
  return fetch(baseUrl + path, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });
}

describe('CORS with SVC_CORS_ORIGINS listing exact origins', () => {
  const ctx = useServerWithAdmin({ env: { SVC_CORS_ORIGINS: `${APP}, http://localhost:5173` } });

  it('Should answer the preflight of a listed origin with its origin, credentials, methods and headers', async () => {
    const response = await preflight(ctx.server.baseUrl, '/v1/admin/keys/key-1', APP);
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), APP);
    assert.equal(response.headers.get('access-control-allow-credentials'), 'true');
    assert.match(response.headers.get('access-control-allow-methods') ?? '', /PUT/);
    assert.equal(response.headers.get('access-control-allow-headers'), 'authorization,content-type');
    assert.match(response.headers.get('vary') ?? '', /Origin/i);
    assert.equal(await response.text(), '');
  });

  it('Should set the CORS headers on a listed origin’s call, its error answers included', async () => {
    const ok = await ctx.server.request('GET', '/v1/auth/me', { token: ctx.admin.accessToken, headers: { origin: 'http://localhost:5173' } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), 'http://localhost:5173');
    assert.equal(ok.headers.get('access-control-allow-credentials'), 'true');
    assert.match(ok.headers.get('access-control-expose-headers') ?? '', /x-request-id/);
    assert.match(ok.headers.get('access-control-expose-headers') ?? '', /retry-after/);

    const refused = await ctx.server.request('GET', '/v1/auth/me', { headers: { origin: APP } });
    assertError(refused, 401, 'missing_credentials');
    assert.equal(refused.headers.get('access-control-allow-origin'), APP);
  });

  it('Should set no CORS header for an origin that is not listed, and answer its preflight 404', async () => {
    const response = await preflight(ctx.server.baseUrl, '/v1/auth/me', OTHER, 'GET');
    assert.equal(response.status, 404);
    assert.equal(response.headers.get('access-control-allow-origin'), null);
    assert.equal(response.headers.get('access-control-allow-credentials'), null);
    const body = (await response.json()) as { error: { code: string } };
    assert.equal(body.error.code, 'not_found');

    const call = await ctx.server.request('GET', '/v1/auth/me', { token: ctx.admin.accessToken, headers: { origin: OTHER } });
    assert.equal(call.status, 200);
    assert.equal(call.headers.get('access-control-allow-origin'), null);
    assert.equal(call.headers.get('access-control-allow-credentials'), null);
  });

  it('Should match origins exactly: no prefix, suffix, scheme or port variant', async () => {
    for (const origin of [`${APP}.evil.example`, 'http://app.example.com', `${APP}:8443`, 'https://evil-app.example.com', 'null']) {
      const response = await preflight(ctx.server.baseUrl, '/v1/auth/me', origin, 'GET');
      assert.equal(response.headers.get('access-control-allow-origin'), null, origin);
      await response.body?.cancel();
    }
  });

  it('Should set no CORS header on a same-origin call (no Origin header)', async () => {
    const call = await ctx.server.request('GET', '/status');
    assert.equal(call.headers.get('access-control-allow-origin'), null);
  });
});

describe('CORS with SVC_CORS_ORIGINS=*', () => {
  const ctx = useServer({ env: { SVC_CORS_ORIGINS: '*' } });

  it('Should allow any origin, never with credentials', async () => {
    const response = await preflight(ctx.server.baseUrl, '/v1/auth/login', OTHER, 'POST', 'content-type');
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    assert.equal(response.headers.get('access-control-allow-credentials'), null);
    const call = await ctx.server.request('GET', '/status', { headers: { origin: OTHER } });
    assert.equal(call.headers.get('access-control-allow-origin'), '*');
    assert.equal(call.headers.get('access-control-allow-credentials'), null);
  });
});

describe('CORS by default (SVC_CORS_ORIGINS unset)', () => {
  const ctx = useServer();

  it('Should set no CORS header and answer a preflight 404 not_found', async () => {
    const response = await preflight(ctx.server.baseUrl, '/v1/auth/me', APP, 'GET');
    assert.equal(response.status, 404);
    assert.equal(response.headers.get('access-control-allow-origin'), null);
    const call = await ctx.server.request('GET', '/status', { headers: { origin: APP } });
    assert.equal(call.headers.get('access-control-allow-origin'), null);
  });
});

describe('loadConfig: SVC_CORS_ORIGINS', () => {
  const env = { SVC_HOME: '/tmp/svc-cors-config-test' };

  it('Should read none by default, a trimmed list, or *', () => {
    assert.deepEqual(loadConfig(env).corsOrigins, []);
    assert.deepEqual(loadConfig({ ...env, SVC_CORS_ORIGINS: ` ${APP} ,http://localhost:5173,,${APP}` }).corsOrigins, [APP, 'http://localhost:5173']);
    assert.deepEqual(loadConfig({ ...env, SVC_CORS_ORIGINS: '*' }).corsOrigins, ['*']);
  });

  it('Should stop start-up on an entry that is not an exact origin, naming it', () => {
    for (const entry of [`${APP}/`, `${APP}/app`, 'app.example.com', 'ftp://files.example.com', '*.example.com', 'https://*.example.com']) {
      assert.throws(
        () => loadConfig({ ...env, SVC_CORS_ORIGINS: entry }),
        (error: Error) => error.name === 'ConfigError' && error.message.includes('SVC_CORS_ORIGINS') && error.message.includes('is not an origin') && !error.message.includes('\n'),
        entry,
      );
    }
  });

  it('Should stop start-up on * mixed with listed origins', () => {
    assert.throws(() => loadConfig({ ...env, SVC_CORS_ORIGINS: `*,${APP}` }), /cannot be combined/);
  });
});
