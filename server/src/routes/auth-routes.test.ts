import assert from 'node:assert/strict';
import { beforeAll, describe, it } from 'vitest';
import { adminCredentials, assertError, createKey, createUser, login, ManualClock, uniqueUsername, useServerWithAdmin, type LoggedInUser } from '../testing/index.js';

const REFRESH_TOKEN_SECONDS = 7 * 24 * 60 * 60;

describe('POST /v1/auth/login and its /token alias', () => {
  const ctx = useServerWithAdmin();
  let disabled: LoggedInUser;
  beforeAll(async () => {
    disabled = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    const response = await ctx.server.request('PUT', `/v1/admin/users/${disabled.id}`, { token: ctx.admin.accessToken, body: { enabled: false } });
    assert.equal(response.status, 200);
  });

  for (const path of ['/v1/auth/login', '/token']) {
    it(`${path} answers a bearer token pair whose access token authenticates`, async () => {
      const response = await ctx.server.request('POST', path, { body: adminCredentials });
      assert.equal(response.status, 200);
      assert.equal(response.body.token_type, 'bearer');
      assert.equal(response.body.expires_in, 1800);
      assert.equal(response.body.refresh_expires_in, REFRESH_TOKEN_SECONDS);
      assert.equal(response.body.must_change_password, undefined);
      assert.match(response.body.refresh_token, /^svc_rt_/);
      const me = await ctx.server.request('GET', '/v1/auth/me', { token: response.body.access_token });
      assert.equal(me.status, 200);
      assert.equal(me.body.id, ctx.admin.id);
    });
  }

  it('finds the account whatever the case of the username', async () => {
    const response = await ctx.server.request('POST', '/v1/auth/login', { body: { username: 'ADMIN', password: adminCredentials.password } });
    assert.equal(response.status, 200);
  });

  it('gives a wrong password, an unknown user and a disabled user the same 401 invalid_credentials, on both paths', async () => {
    const attempts = [
      { username: adminCredentials.username, password: 'not the right password at all' },
      { username: uniqueUsername('nobody'), password: adminCredentials.password },
      { username: disabled.username, password: disabled.password },
    ];
    const answers = [];
    for (const path of ['/v1/auth/login', '/token']) {
      for (const body of attempts) answers.push(await ctx.server.request('POST', path, { body }));
    }
    for (const answer of answers) {
      assert.equal(answer.status, 401);
      assert.equal(answer.headers.get('www-authenticate'), 'Bearer');
      assert.deepEqual(answer.body, answers[0]?.body);
    }
    assert.deepEqual(answers[0]?.body, {
      detail: 'Incorrect username or password',
      error: { message: 'Incorrect username or password', type: 'authentication_error', code: 'invalid_credentials' },
    });
  });

  it('refuses a body without a password with 400 on both paths', async () => {
    for (const path of ['/v1/auth/login', '/token']) {
      const response = await ctx.server.request('POST', path, { body: { username: 'admin' } });
      assertError(response, 400, 'invalid_request');
    }
  });

  it('flags must_change_password in the pair when the account is flagged', async () => {
    const username = uniqueUsername();
    const password = 'a passphrase chosen by the admin';
    const created = await ctx.server.request('POST', '/v1/admin/users', {
      token: ctx.admin.accessToken,
      body: { username, password, permissions: [], must_change_password: true },
    });
    assert.equal(created.status, 201);
    for (const path of ['/v1/auth/login', '/token']) {
      const response = await ctx.server.request('POST', path, { body: { username, password } });
      assert.equal(response.status, 200);
      assert.equal(response.body.must_change_password, true);
    }
  });
});

describe('POST /v1/auth/refresh within the default grace window', () => {
  const ctx = useServerWithAdmin();

  it('rotates: answers a new pair whose tokens differ and work', async () => {
    const tokens = await login(ctx.server, ctx.admin.username, ctx.admin.password);
    const response = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: tokens.refresh_token } });
    assert.equal(response.status, 200);
    assert.notEqual(response.body.refresh_token, tokens.refresh_token);
    assert.notEqual(response.body.access_token, tokens.access_token);
    assert.equal(response.body.token_type, 'bearer');
    assert.ok(response.body.refresh_expires_in <= REFRESH_TOKEN_SECONDS);
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: response.body.access_token })).status, 200);
    const next = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: response.body.refresh_token } });
    assert.equal(next.status, 200);
  });

  it('lets a concurrent client present the rotated token a second time within the grace window', async () => {
    const tokens = await login(ctx.server, ctx.admin.username, ctx.admin.password);
    const first = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: tokens.refresh_token } });
    const second = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: tokens.refresh_token } });
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.notEqual(first.body.refresh_token, second.body.refresh_token);
    assert.equal((await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: first.body.refresh_token } })).status, 200);
  });

  it('refuses an unknown refresh token with 401 invalid_refresh_token', async () => {
    const response = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: 'svc_rt_not-a-real-token' } });
    assertError(response, 401, 'invalid_refresh_token');
  });

  it('does not let the two token kinds stand in for each other', async () => {
    const tokens = await login(ctx.server, ctx.admin.username, ctx.admin.password);
    const asRefresh = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: tokens.access_token } });
    assertError(asRefresh, 401, 'invalid_refresh_token');
    const asBearer = await ctx.server.request('GET', '/v1/auth/me', { token: tokens.refresh_token });
    assertError(asBearer, 401, 'invalid_token');
  });

  it('refuses a missing or empty refresh_token with 400', async () => {
    for (const body of [{}, { refresh_token: '' }]) {
      const response = await ctx.server.request('POST', '/v1/auth/refresh', { body });
      assertError(response, 400, 'invalid_request');
    }
  });
});

describe('POST /v1/auth/refresh without a grace window', () => {
  const clock = new ManualClock();
  const ctx = useServerWithAdmin({ config: { refreshReuseGraceSeconds: 0 }, clock });

  /** Refreshes `token`, then moves the server's clock past the rotation instant. */
  async function rotate(token: string): Promise<string> {
    const response = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: token } });
    assert.equal(response.status, 200);
    clock.advance(5);
    return response.body.refresh_token;
  }

  it('refuses a rotated token presented again', async () => {
    const tokens = await login(ctx.server, ctx.admin.username, ctx.admin.password);
    await rotate(tokens.refresh_token);
    const again = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: tokens.refresh_token } });
    assertError(again, 401, 'invalid_refresh_token');
  });

  it('ends the whole session on reuse: the newest token then fails too', async () => {
    const tokens = await login(ctx.server, ctx.admin.username, ctx.admin.password);
    const second = await rotate(tokens.refresh_token);
    const newest = await rotate(second);
    const reuse = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: tokens.refresh_token } });
    assertError(reuse, 401, 'invalid_refresh_token');
    const afterReuse = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: newest } });
    assertError(afterReuse, 401, 'invalid_refresh_token');
  });

  it('leaves the user\'s other sessions alone when one session is ended for reuse', async () => {
    const other = await login(ctx.server, ctx.admin.username, ctx.admin.password);
    const tokens = await login(ctx.server, ctx.admin.username, ctx.admin.password);
    await rotate(tokens.refresh_token);
    assert.equal((await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: tokens.refresh_token } })).status, 401);
    assert.equal((await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: other.refresh_token } })).status, 200);
  });
});

describe('POST /v1/auth/logout', () => {
  const ctx = useServerWithAdmin();

  it('answers ok and the refresh token then fails', async () => {
    const tokens = await login(ctx.server, ctx.admin.username, ctx.admin.password);
    const response = await ctx.server.request('POST', '/v1/auth/logout', { body: { refresh_token: tokens.refresh_token } });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { ok: true });
    const refresh = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: tokens.refresh_token } });
    assertError(refresh, 401, 'invalid_refresh_token');
  });

  it('ends the whole session, including tokens rotated from the one presented', async () => {
    const tokens = await login(ctx.server, ctx.admin.username, ctx.admin.password);
    const rotated = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: tokens.refresh_token } });
    assert.equal(rotated.status, 200);
    assert.deepEqual((await ctx.server.request('POST', '/v1/auth/logout', { body: { refresh_token: tokens.refresh_token } })).body, { ok: true });
    assert.equal((await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: rotated.body.refresh_token } })).status, 401);
  });

  it('answers ok for unknown, empty and already-ended tokens, needing no credentials', async () => {
    const tokens = await login(ctx.server, ctx.admin.username, ctx.admin.password);
    for (const refresh_token of ['svc_rt_unknown', '', tokens.refresh_token, tokens.refresh_token]) {
      const response = await ctx.server.request('POST', '/v1/auth/logout', { body: { refresh_token } });
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { ok: true });
    }
  });

  it('leaves the user\'s other sessions working', async () => {
    const kept = await login(ctx.server, ctx.admin.username, ctx.admin.password);
    const ended = await login(ctx.server, ctx.admin.username, ctx.admin.password);
    await ctx.server.request('POST', '/v1/auth/logout', { body: { refresh_token: ended.refresh_token } });
    assert.equal((await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: kept.refresh_token } })).status, 200);
  });
});

describe('GET /v1/auth/me', () => {
  const ctx = useServerWithAdmin();
  let reader: LoggedInUser;
  beforeAll(async () => {
    reader = await createUser(ctx.server, ctx.admin.accessToken, ['models:read', 'models:list', 'keys:create']);
  });

  it('describes the caller of an access token', async () => {
    const response = await ctx.server.request('GET', '/v1/auth/me', { token: ctx.admin.accessToken });
    assert.equal(response.status, 200);
    assert.equal(response.body.id, ctx.admin.id);
    assert.equal(response.body.username, 'admin');
    assert.equal(response.body.enabled, true);
    assert.equal(response.body.must_change_password, false);
    assert.deepEqual(response.body.permissions, ['admin']);
    assert.equal(response.body.auth_type, 'jwt');
    assert.equal(response.body.api_key, null);
    assert.equal(typeof response.body.created_at, 'string');
  });

  it('lists a user\'s permissions in the spec order', async () => {
    const response = await ctx.server.request('GET', '/v1/auth/me', { token: reader.accessToken });
    assert.deepEqual(response.body.permissions, ['models:list', 'models:read', 'keys:create']);
  });

  it('describes the caller of an API key, naming the key', async () => {
    const key = await createKey(ctx.server, reader.accessToken, { name: 'notebook' });
    const response = await ctx.server.request('GET', '/v1/auth/me', { token: key.key });
    assert.equal(response.status, 200);
    assert.equal(response.body.id, reader.id);
    assert.equal(response.body.auth_type, 'api_key');
    assert.deepEqual(response.body.api_key, { id: key.id, name: 'notebook', key_prefix: key.key_prefix });
    assert.deepEqual(response.body.permissions, ['models:list', 'models:read', 'keys:create']);
  });

  it('shows only the permissions a narrowing key leaves', async () => {
    const key = await createKey(ctx.server, reader.accessToken, { name: 'list only', permissions: ['models:list'] });
    const response = await ctx.server.request('GET', '/v1/auth/me', { token: key.key });
    assert.deepEqual(response.body.permissions, ['models:list']);
  });

  it('answers 401 missing_credentials with WWW-Authenticate when no credentials are sent', async () => {
    const response = await ctx.server.request('GET', '/v1/auth/me');
    assertError(response, 401, 'missing_credentials');
    assert.equal(response.headers.get('www-authenticate'), 'Bearer');
  });

  it('answers 400 for a malformed Authorization header', async () => {
    for (const authorization of ['Basic YWRtaW46YWRtaW4=', 'Bearer', ctx.admin.accessToken]) {
      const response = await ctx.server.request('GET', '/v1/auth/me', { headers: { authorization } });
      assertError(response, 400, 'malformed_authorization_header');
    }
  });

  it('answers 401 invalid_token for a damaged access token', async () => {
    const response = await ctx.server.request('GET', '/v1/auth/me', { token: `${ctx.admin.accessToken.slice(0, -2)}xx` });
    assertError(response, 401, 'invalid_token');
    assert.equal(response.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
  });

  it('refuses credentials in the query string with 400', async () => {
    const response = await ctx.server.request('GET', `/v1/auth/me?access_token=${ctx.admin.accessToken}`, { token: ctx.admin.accessToken });
    assertError(response, 400, 'credentials_in_query');
  });
});

describe('PUT /v1/auth/me/password', () => {
  const ctx = useServerWithAdmin();

  async function flaggedUser(): Promise<{ username: string; password: string; accessToken: string; refreshToken: string }> {
    const username = uniqueUsername();
    const password = 'the first passphrase of this user';
    const created = await ctx.server.request('POST', '/v1/admin/users', {
      token: ctx.admin.accessToken,
      body: { username, password, permissions: ['models:list'], must_change_password: true },
    });
    assert.equal(created.status, 201);
    const tokens = await login(ctx.server, username, password);
    assert.equal(tokens.must_change_password, true);
    return { username, password, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
  }

  it('refuses a wrong current password with 403 current_password_incorrect and changes nothing', async () => {
    const user = await flaggedUser();
    const response = await ctx.server.request('PUT', '/v1/auth/me/password', {
      token: user.accessToken,
      body: { current_password: 'this is not my password', new_password: 'a brand new passphrase for me' },
    });
    assertError(response, 403, 'current_password_incorrect');
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: user.accessToken })).status, 200);
    await login(ctx.server, user.username, user.password);
  });

  it('refuses a new password that breaks the policy with 400', async () => {
    const user = await flaggedUser();
    const response = await ctx.server.request('PUT', '/v1/auth/me/password', {
      token: user.accessToken,
      body: { current_password: user.password, new_password: 'too short' },
    });
    assertError(response, 400, 'password_too_short');
    assert.equal(response.body.error.param, 'new_password');
  });

  it('answers a fresh pair, ends the old tokens and clears must_change_password', async () => {
    const user = await flaggedUser();
    const otherSession = await login(ctx.server, user.username, user.password);
    const newPassword = 'my own much better passphrase';
    const response = await ctx.server.request('PUT', '/v1/auth/me/password', {
      token: user.accessToken,
      body: { current_password: user.password, new_password: newPassword },
    });
    assert.equal(response.status, 200);
    assert.equal(response.body.token_type, 'bearer');
    assert.equal(response.body.must_change_password, undefined);

    const oldAccess = await ctx.server.request('GET', '/v1/auth/me', { token: user.accessToken });
    assertError(oldAccess, 401, 'invalid_token');
    for (const refresh_token of [user.refreshToken, otherSession.refresh_token]) {
      const refresh = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token } });
      assert.equal(refresh.status, 401);
    }
    assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: otherSession.access_token })).status, 401);

    const me = await ctx.server.request('GET', '/v1/auth/me', { token: response.body.access_token });
    assert.equal(me.status, 200);
    assert.equal(me.body.must_change_password, false);
    assert.equal((await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: response.body.refresh_token } })).status, 200);

    const relogin = await login(ctx.server, user.username, newPassword);
    assert.equal(relogin.must_change_password, undefined);
    const oldPassword = await ctx.server.request('POST', '/v1/auth/login', { body: { username: user.username, password: user.password } });
    assert.equal(oldPassword.status, 401);
  });

  it('needs credentials', async () => {
    const response = await ctx.server.request('PUT', '/v1/auth/me/password', {
      body: { current_password: adminCredentials.password, new_password: 'whatever long passphrase' },
    });
    assert.equal(response.status, 401);
  });
});
