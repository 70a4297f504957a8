import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { adminCredentials, assertError, useServerWithAdmin, type TestResponse } from '../testing/index.js';

/** The `svc_session=…` pair of a response's Set-Cookie, and its attributes. */
function sessionCookieOf(response: TestResponse): { value: string; attributes: string[] } {
  const header = response.headers.get('set-cookie');
  assert.ok(header !== null, 'a Set-Cookie header');
  const [pair = '', ...attributes] = header.split(';').map((part) => part.trim());
  assert.match(pair, /^svc_session=/);
  return { value: pair.slice('svc_session='.length), attributes };
}

const cookieHeader = (value: string) => ({ cookie: `other=1; svc_session=${value}` });

describe('browser sessions (refresh token in an HttpOnly cookie)', () => {
  const ctx = useServerWithAdmin();

  async function start(): Promise<{ response: TestResponse; cookie: string }> {
    const response = await ctx.server.request('POST', '/v1/auth/session', { body: adminCredentials });
    assert.equal(response.status, 200);
    return { response, cookie: sessionCookieOf(response).value };
  }

  it('login answers the access token without a refresh token and sets a strict, HttpOnly cookie scoped to the session routes', async () => {
    const { response, cookie } = await start();
    assert.equal(response.body.refresh_token, undefined);
    assert.equal(response.body.token_type, 'bearer');
    assert.match(cookie, /^svc_rt_/);
    const { attributes } = sessionCookieOf(response);
    assert.deepEqual(attributes.slice().sort(), ['HttpOnly', 'Max-Age=604800', 'Path=/v1/auth/session', 'SameSite=Strict'].sort());
    const me = await ctx.server.request('GET', '/v1/auth/me', { token: response.body.access_token });
    assert.equal(me.body.username, adminCredentials.username);
  });

  it('marks the cookie Secure when the request came over HTTPS through a proxy', async () => {
    const response = await ctx.server.request('POST', '/v1/auth/session', { body: adminCredentials, headers: { 'x-forwarded-proto': 'https' } });
    assert.ok(sessionCookieOf(response).attributes.includes('Secure'));
  });

  it('refresh reads the cookie and answers a new access token with a rotated cookie', async () => {
    const { cookie } = await start();
    const refreshed = await ctx.server.request('POST', '/v1/auth/session/refresh', { body: {}, headers: cookieHeader(cookie) });
    assert.equal(refreshed.status, 200);
    assert.equal(refreshed.body.refresh_token, undefined);
    const rotated = sessionCookieOf(refreshed).value;
    assert.notEqual(rotated, cookie);
    const me = await ctx.server.request('GET', '/v1/auth/me', { token: refreshed.body.access_token });
    assert.equal(me.status, 200);
  });

  it('refresh without a cookie, or with an unknown one, is 401 invalid_refresh_token and clears the cookie', async () => {
    for (const headers of [{}, cookieHeader('svc_rt_unknown'), cookieHeader('not;valid')]) {
      const response = await ctx.server.request('POST', '/v1/auth/session/refresh', { body: {}, headers });
      assertError(response, 401, 'invalid_refresh_token');
      const cleared = sessionCookieOf(response);
      assert.equal(cleared.value, '');
      assert.ok(cleared.attributes.includes('Max-Age=0'));
    }
  });

  it('refresh and logout take only the empty JSON object: forms and other bodies are refused', async () => {
    const { cookie } = await start();
    const form = await ctx.server.request('POST', '/v1/auth/session/refresh', {
      rawBody: 'a=1',
      headers: { ...cookieHeader(cookie), 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    const plain = await ctx.server.request('POST', '/v1/auth/session/logout', { rawBody: '{}', headers: { ...cookieHeader(cookie), 'content-type': 'text/plain' } });
    assert.equal(plain.status, 415);
    const extra = await ctx.server.request('POST', '/v1/auth/session/refresh', { body: { refresh_token: cookie }, headers: cookieHeader(cookie) });
    assert.equal(extra.status, 400);
    const still = await ctx.server.request('POST', '/v1/auth/session/refresh', { body: {}, headers: cookieHeader(cookie) });
    assert.equal(still.status, 200, 'the refused requests did not touch the session');
  });

  it('logout revokes the session on the server and clears the cookie', async () => {
    const { cookie } = await start();
    const response = await ctx.server.request('POST', '/v1/auth/session/logout', { body: {}, headers: cookieHeader(cookie) });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { ok: true });
    assert.ok(sessionCookieOf(response).attributes.includes('Max-Age=0'));
    const after = await ctx.server.request('POST', '/v1/auth/session/refresh', { body: {}, headers: cookieHeader(cookie) });
    assertError(after, 401, 'invalid_refresh_token');
  });

  it('logout without a cookie still answers ok', async () => {
    const response = await ctx.server.request('POST', '/v1/auth/session/logout', { body: {} });
    assert.equal(response.status, 200);
  });

  it('a wrong password is the same 401 invalid_credentials as the token login, and sets no cookie', async () => {
    const response = await ctx.server.request('POST', '/v1/auth/session', { body: { ...adminCredentials, password: 'not the right password at all' } });
    assertError(response, 401, 'invalid_credentials');
    assert.equal(response.headers.get('set-cookie'), null);
  });
});
