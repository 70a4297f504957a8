/**
 * Single sign-on end to end over HTTP: a real OpenID provider (oidc-provider) and a real svc, the
 * browser's part played by a cookie-keeping user agent. The sign-in, the session it starts, JIT
 * accounts and the group mapping, and the attacks the flow must stop.
 */
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SignJWT, decodeJwt, decodeProtectedHeader, importJWK } from 'jose';
import { createUser, login } from '@svc/server/testing';
import { addAccount } from '../support/oidc-provider.js';
import { browserAccessToken, browserSignIn, startSsoStack, type SsoStack } from '../support/sso.js';
import { UserAgent } from '../support/user-agent.js';

let stack: SsoStack;
beforeAll(async () => {
  // 127.0.0.1 is a trusted proxy, so the brute-force test can fail "from" another address.
  stack = await startSsoStack({ SVC_TRUSTED_PROXIES: '127.0.0.1' });
});
afterAll(() => stack?.close());

async function me(token: string) {
  const response = await stack.server.request('GET', '/v1/auth/me', { token });
  assert.equal(response.status, 200, response.text);
  return response.body as { id: string; username: string; permissions: string[]; source?: string };
}

async function auditEvents(eventType: string) {
  // Searching flushes this process's queue of audit records first.
  const query = new URLSearchParams({ time_from: 'now-1h', size: '1000', event_type: eventType });
  const response = await stack.server.request('GET', `/v1/audit/search?${query}`, { token: stack.admin.accessToken });
  assert.equal(response.status, 200, response.text);
  return (response.body as { hits: Array<Record<string, unknown>> }).hits;
}

describe('single sign-on in a browser', () => {
  it('Should offer the provider on the login page', async () => {
    const response = await stack.server.request('GET', '/v1/auth/oidc/config');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { enabled: true, display_name: 'Test IdP', login_url: '/v1/auth/oidc/login', end_session_supported: true, device_flow_supported: true });
  });

  it('Should start a code flow with PKCE, state and nonce, bound to the browser by a cookie', async () => {
    const agent = new UserAgent();
    const hop = await agent.request(`${stack.server.baseUrl}/v1/auth/oidc/login`);
    assert.equal(hop.status, 302);
    const location = new URL(hop.location ?? '');
    assert.equal(location.origin, stack.provider.issuer);
    assert.equal(location.searchParams.get('response_type'), 'code');
    assert.equal(location.searchParams.get('code_challenge_method'), 'S256');
    assert.match(location.searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(location.searchParams.get('state') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(location.searchParams.get('nonce') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.equal(location.searchParams.get('redirect_uri'), `${stack.server.baseUrl}/v1/auth/oidc/callback`);
    const cookie = hop.setCookies.find((line) => line.startsWith('svc_oidc='));
    assert.ok(cookie !== undefined && /HttpOnly/.test(cookie) && /SameSite=Lax/.test(cookie) && /Path=\/v1\/auth\/oidc/.test(cookie), String(cookie));
  });

  it('Should create the account on first sign-in, with the mapped permissions, and start a svc session', async () => {
    const account = addAccount(stack.provider, 'grace', ['ml-users', 'unmapped-group']);
    const { agent, callback } = await browserSignIn(stack, 'grace');
    assert.equal(callback.status, 302);
    assert.equal(callback.location, `${stack.server.baseUrl}/`);
    const session = callback.setCookies.find((line) => line.startsWith('svc_session='));
    assert.ok(session !== undefined && /HttpOnly/.test(session) && /SameSite=Strict/.test(session), String(session));
    assert.equal(agent.cookies(stack.server.baseUrl).has('svc_oidc'), false, 'the binding cookie is cleared');
    const token = await browserAccessToken(stack, agent);
    const caller = await me(token);
    assert.equal(caller.username, 'grace');
    assert.equal(caller.source, 'oidc');
    assert.deepEqual(caller.permissions, ['models:read', 'keys:create']);
    const created = await auditEvents('oidc_user_created');
    const record = created.find((item) => item['user'] === 'grace');
    assert.ok(record !== undefined, JSON.stringify(created));
    assert.equal(record['target'], account.subject);
    assert.deepEqual((record['details'] as Record<string, unknown>)['provider'], stack.provider.issuer);
    const signIns = await auditEvents('oidc_login');
    assert.ok(signIns.some((item) => item['user'] === 'grace' && item['status'] === 'success' && item['target'] === account.subject));
  });

  it('Should refuse a password login for a single sign-on account', async () => {
    addAccount(stack.provider, 'heidi', []);
    await browserSignIn(stack, 'heidi');
    const users = await stack.server.request('GET', '/v1/admin/users', { token: stack.admin.accessToken });
    const heidi = (users.body as Array<{ id: string; username: string; source: string }>).find((user) => user.username === 'heidi');
    assert.equal(heidi?.source, 'oidc');
    // Even after an administrator sets a password, the account signs in only through the provider.
    const reset = await stack.server.request('PUT', `/v1/admin/users/${heidi?.id}/password`, {
      token: stack.admin.accessToken,
      body: { new_password: 'a long passphrase for heidi' },
    });
    assert.equal(reset.status, 204, reset.text);
    const refused = await stack.server.request('POST', '/v1/auth/login', { body: { username: 'heidi', password: 'a long passphrase for heidi' } });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'invalid_credentials');
  });

  it('Should re-apply the mapping on every sign-in: a group removed at the provider is revoked in svc', async () => {
    const account = addAccount(stack.provider, 'ivan', ['ml-admins', 'ml-users']);
    const first = await browserSignIn(stack, 'ivan');
    const firstToken = await browserAccessToken(stack, first.agent);
    assert.deepEqual((await me(firstToken)).permissions, ['models:read', 'keys:create', 'admin']);
    account.groups = ['ml-users'];
    const second = await browserSignIn(stack, 'ivan');
    const caller = await me(await browserAccessToken(stack, second.agent));
    assert.deepEqual(caller.permissions, ['models:read', 'keys:create']);
    // Permissions are live: the first session lost admin too.
    const users = await stack.server.request('GET', '/v1/admin/users', { token: firstToken });
    assert.equal(users.status, 403);
    const changes = await auditEvents('oidc_permissions_changed');
    const change = changes.find((item) => item['user'] === 'ivan');
    assert.ok(change !== undefined, JSON.stringify(changes));
    assert.deepEqual((change['details'] as Record<string, unknown>)['revoked'], ['admin']);
    assert.deepEqual((change['details'] as Record<string, unknown>)['granted'], []);
    assert.equal(change['target'], account.subject);
  });

  it('Should never take over a local account with the same username', async () => {
    const local = await createUser(stack.server, stack.admin.accessToken, ['models:list'], 'judy');
    addAccount(stack.provider, 'judy', ['ml-admins']);
    const { callback } = await browserSignIn(stack, 'judy');
    assert.equal(callback.status, 409);
    assert.equal(JSON.parse(callback.body).error.code, 'oidc_username_conflict');
    const still = await login(stack.server, 'judy', local.password);
    assert.deepEqual((await me(still.access_token)).permissions, ['models:list']);
  });

  it('Should keep an account an administrator disabled disabled, whatever the provider says', async () => {
    addAccount(stack.provider, 'mallory', ['ml-users']);
    await browserSignIn(stack, 'mallory');
    const users = await stack.server.request('GET', '/v1/admin/users', { token: stack.admin.accessToken });
    const mallory = (users.body as Array<{ id: string; username: string }>).find((user) => user.username === 'mallory');
    const disabled = await stack.server.request('PUT', `/v1/admin/users/${mallory?.id}`, { token: stack.admin.accessToken, body: { enabled: false } });
    assert.equal(disabled.status, 200, disabled.text);
    const { callback } = await browserSignIn(stack, 'mallory');
    assert.equal(callback.status, 401);
    assert.equal(JSON.parse(callback.body).error.code, 'account_disabled');
    assert.equal(callback.setCookies.some((line) => line.startsWith('svc_session=') && !line.startsWith('svc_session=;')), false);
  });

  it('Should refuse a replayed state', async () => {
    addAccount(stack.provider, 'niaj', ['ml-users']);
    const { agent, callback } = await browserSignIn(stack, 'niaj');
    assert.equal(callback.status, 302);
    const replay = await agent.request(callback.url);
    assert.equal(replay.status, 400);
    assert.equal(JSON.parse(replay.body).error.code, 'oidc_state_invalid');
  });

  it('Should refuse a callback carried to another browser (no binding cookie)', async () => {
    addAccount(stack.provider, 'olivia', ['ml-users']);
    const agent = new UserAgent();
    const hops = await agent.follow(`${stack.server.baseUrl}/v1/auth/oidc/login`);
    const form = hops.at(-1);
    const submitted = await agent.request(`${form?.url}/login`, { method: 'POST', form: { username: 'olivia' } });
    const rest = await agent.follow(submitted.location ?? '', (next) => next.pathname === '/v1/auth/oidc/callback');
    const callbackUrl = [submitted, ...rest].map((hop) => hop.location).find((location) => location?.includes('/v1/auth/oidc/callback'));
    assert.ok(typeof callbackUrl === 'string');
    const victim = new UserAgent();
    const answer = await victim.request(callbackUrl);
    assert.equal(answer.status, 400);
    assert.equal(JSON.parse(answer.body).error.code, 'oidc_state_invalid');
    // The state was spent by the refused attempt: the rightful browser cannot use it either.
    const late = await agent.request(callbackUrl);
    assert.equal(late.status, 400);
  });

  it('Should send a browser that navigated to a refused callback to the login page with the reason', async () => {
    // node:http, since fetch sets Sec-Fetch-Mode itself.
    const answer = await new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      get(`${stack.server.baseUrl}/v1/auth/oidc/callback?code=x&state=unknown`, { headers: { 'sec-fetch-mode': 'navigate', accept: 'text/html' } }, (response) => {
        response.resume();
        resolve({ status: response.statusCode ?? 0, location: response.headers.location });
      }).on('error', reject);
    });
    assert.equal(answer.status, 302);
    assert.equal(answer.location, `${stack.server.baseUrl}/login?sso_error=oidc_state_invalid`);
  });

  it('Should refuse a tampered ID token', async () => {
    addAccount(stack.provider, 'peggy', ['ml-admins']);
    stack.provider.rewriteIdTokens = async (idToken) => {
      const [header, payload, signature] = idToken.split('.');
      const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
      claims['preferred_username'] = 'admin';
      return [header, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.');
    };
    try {
      const { callback } = await browserSignIn(stack, 'peggy');
      assert.equal(callback.status, 401);
      const body = JSON.parse(callback.body);
      assert.equal(body.error.code, 'oidc_login_failed');
      assert.match(body.detail, /ERR_JWS_SIGNATURE_VERIFICATION_FAILED/);
    } finally {
      stack.provider.rewriteIdTokens = null;
    }
    const failures = await auditEvents('oidc_login');
    assert.ok(failures.some((item) => item['status'] === 'failure' && String(item['reason']).includes('SIGNATURE')));
  });

  it('Should refuse an ID token signed by the provider for another audience', async () => {
    addAccount(stack.provider, 'rupert', ['ml-admins']);
    stack.provider.rewriteIdTokens = async (idToken) => {
      const claims = decodeJwt(idToken);
      const { kid } = decodeProtectedHeader(idToken);
      const key = await importJWK(stack.provider.signingKey(), 'RS256');
      return new SignJWT({ ...claims, aud: 'another-client' }).setProtectedHeader({ alg: 'RS256', ...(kid === undefined ? {} : { kid }) }).sign(key);
    };
    try {
      const { callback } = await browserSignIn(stack, 'rupert');
      assert.equal(callback.status, 401);
      const body = JSON.parse(callback.body);
      assert.equal(body.error.code, 'oidc_login_failed');
      assert.match(body.detail, /ERR_JWT_CLAIM_VALIDATION_FAILED/);
    } finally {
      stack.provider.rewriteIdTokens = null;
    }
    const users = await stack.server.request('GET', '/v1/admin/users', { token: stack.admin.accessToken });
    assert.equal((users.body as Array<{ username: string }>).some((user) => user.username === 'rupert'), false, 'no account was created');
  });

  it('Should follow a key rotation at the provider without a restart', async () => {
    addAccount(stack.provider, 'sybil', ['ml-users']);
    const before = await browserSignIn(stack, 'sybil');
    assert.equal(before.callback.status, 302);
    const oldKid = stack.provider.signingKey().kid;
    await stack.provider.rotateKeys();
    assert.notEqual(stack.provider.signingKey().kid, oldKid);
    const readsBefore = stack.provider.jwksReads();
    const after = await browserSignIn(stack, 'sybil');
    assert.equal(after.callback.status, 302, after.callback.body);
    assert.ok(stack.provider.jwksReads() > readsBefore, 'svc read the new key set');
    assert.equal((await me(await browserAccessToken(stack, after.agent))).username, 'sybil');
  });

  it('Should end the svc session and point the browser at the provider\'s logout', async () => {
    addAccount(stack.provider, 'trent', ['ml-users']);
    const { agent } = await browserSignIn(stack, 'trent');
    await browserAccessToken(stack, agent);
    const out = await agent.request(`${stack.server.baseUrl}/v1/auth/session/logout`, { method: 'POST', json: {} });
    assert.equal(out.status, 200);
    const refused = await agent.request(`${stack.server.baseUrl}/v1/auth/session/refresh`, { method: 'POST', json: {} });
    assert.equal(refused.status, 401);
    const logout = await agent.request(`${stack.server.baseUrl}/v1/auth/oidc/logout`);
    assert.equal(logout.status, 302);
    const target = new URL(logout.location ?? '');
    assert.equal(target.origin, stack.provider.issuer);
    assert.equal(target.searchParams.get('post_logout_redirect_uri'), `${stack.server.baseUrl}/login`);
    assert.equal(target.searchParams.get('client_id'), 'svc-test');
  });

  it('Should show administrators the configuration with the client secret hidden', async () => {
    const response = await stack.server.request('GET', '/v1/admin/oidc', { token: stack.admin.accessToken });
    assert.equal(response.status, 200);
    assert.equal(response.body.client_secret_set, true);
    assert.equal(response.text.includes('a client secret the provider and svc share'), false);
    assert.equal(response.body.redirect_uri, `${stack.server.baseUrl}/v1/auth/oidc/callback`);
    const user = await createUser(stack.server, stack.admin.accessToken, ['users:manage']);
    const forbidden = await stack.server.request('GET', '/v1/admin/oidc', { token: user.accessToken });
    assert.equal(forbidden.status, 403);
  });

  it('Should count guessed states and codes as failed logins: the guessing address is banned', async () => {
    const settings = await stack.server.request('PUT', '/v1/admin/security/rate-limit', { token: stack.admin.accessToken, body: { ip: { max_failures: 3 } } });
    assert.equal(settings.status, 200, settings.text);
    const guesser = { 'x-forwarded-for': '203.0.113.9' };
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const guess = await stack.server.request('GET', `/v1/auth/oidc/callback?code=x&state=guess-${attempt}`, { headers: guesser });
      assert.equal(guess.status, 400);
    }
    const code = await stack.server.request('POST', '/v1/auth/oidc/token', { headers: guesser, body: { code: 'svc_oc_guess', code_verifier: 'v'.repeat(43) } });
    assert.equal(code.status, 400);
    const banned = await stack.server.request('GET', '/v1/auth/oidc/callback?code=x&state=guess-3', { headers: guesser });
    assert.equal(banned.status, 429);
    assert.equal(banned.body.error.code, 'ip_banned');
    // Everybody else still signs in.
    addAccount(stack.provider, 'victor', ['ml-users']);
    assert.equal((await browserSignIn(stack, 'victor')).callback.status, 302);
  });
});
