/**
 * The SDK's browser session against the real server: `startBrowserSession`, refresh through the
 * cookie when the access token expires, `resumeBrowserSession` after a "reload" (a new Client), and
 * logout. Node's fetch keeps no cookies, so a small cookie jar in the injected `fetch` plays the
 * browser's part (one cookie, sent only to its path, as a browser would).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { Client, type StoredSession, type TokenStore } from '@svc/sdk';
import { adminCredentials, useServerWithAdmin } from '@svc/server/testing';

/** A `fetch` with a browser-like jar for the `svc_session` cookie; it records the paths called. */
function browserFetch(): { fetch: typeof fetch; cookie(): string | null; paths: string[] } {
  let cookie: { value: string; path: string } | null = null;
  const paths: string[] = [];
  return {
    paths,
    cookie: () => cookie?.value ?? null,
    async fetch(input, init) {
      const request = new Request(input, init);
      const path = new URL(request.url).pathname;
      paths.push(path);
      if (cookie !== null && path.startsWith(cookie.path)) request.headers.set('cookie', `svc_session=${cookie.value}`);
      const response = await globalThis.fetch(request);
      const set = response.headers.get('set-cookie');
      if (set !== null) {
        const value = /^svc_session=([^;]*)/.exec(set)?.[1] ?? '';
        const cookiePath = /Path=([^;]+)/.exec(set)?.[1] ?? '/';
        cookie = value === '' || /Max-Age=0/.test(set) ? null : { value, path: cookiePath };
      }
      return response;
    },
  };
}

/** A store that lets the test expire the access token. */
class InspectableStore implements TokenStore {
  session: StoredSession | null = null;
  get() {
    return this.session;
  }
  set(session: StoredSession) {
    this.session = session;
  }
  clear() {
    this.session = null;
  }
}

describe('SDK browser sessions (refresh token in the HttpOnly cookie)', () => {
  const ctx = useServerWithAdmin();

  it('logs in without ever holding the refresh token, refreshes through the cookie, resumes after a reload and logs out', async () => {
    const browser = browserFetch();
    const store = new InspectableStore();
    const client = new Client({ baseUrl: ctx.server.baseUrl, fetch: browser.fetch, tokenStore: store, maxRetries: 0 });

    const session = await client.startBrowserSession(adminCredentials.username, adminCredentials.password);
    assert.equal('refresh_token' in session, false);
    assert.equal(store.session?.refreshToken, null, 'the SDK keeps no refresh token');
    assert.match(browser.cookie() ?? '', /^svc_rt_/);
    assert.equal((await client.auth.me()).username, adminCredentials.username);

    // The access token ran out: the next call refreshes through the cookie first.
    const firstCookie = browser.cookie();
    store.session = { ...(store.session as StoredSession), accessTokenExpiresAt: Date.now() - 1 };
    assert.equal((await client.auth.me()).username, adminCredentials.username);
    assert.ok(browser.paths.includes('/v1/auth/session/refresh'));
    assert.notEqual(browser.cookie(), firstCookie, 'the cookie was rotated');

    // A reload: a new client with an empty memory store picks the session up from the cookie.
    const reloaded = new Client({ baseUrl: ctx.server.baseUrl, fetch: browser.fetch, maxRetries: 0 });
    assert.equal(await reloaded.resumeBrowserSession(), true);
    assert.equal((await reloaded.auth.me()).username, adminCredentials.username);

    const lastCookie = browser.cookie();
    await reloaded.logout();
    assert.equal(browser.cookie(), null, 'logout cleared the cookie');
    const replay = await fetch(`${ctx.server.baseUrl}/v1/auth/session/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `svc_session=${lastCookie}` },
      body: '{}',
    });
    assert.equal(replay.status, 401, 'the server revoked the session');
    assert.equal(await new Client({ baseUrl: ctx.server.baseUrl, fetch: browser.fetch, maxRetries: 0 }).resumeBrowserSession(), false);
  });

  it('resumeBrowserSession answers false without a cookie', async () => {
    const client = new Client({ baseUrl: ctx.server.baseUrl, fetch: browserFetch().fetch, maxRetries: 0 });
    assert.equal(await client.resumeBrowserSession(), false);
  });
});
