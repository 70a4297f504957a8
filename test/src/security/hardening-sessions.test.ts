/**
 * Issue 14, passwords and sessions: H5 (the policy checks the NFKC form that is hashed), H6 (the
 * refresh grace window cannot fork a session), H10 (`must_change_password` is enforced), and the
 * start-up warning about forwarded headers without `SVC_TRUSTED_PROXIES`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { assertError, contractClient, createUser, login, pollUntil, setupAdmin, startServerProcess, useServerWithAdmin, withTempHome } from '@svc/server/testing';

describe('hardening: passwords and sessions', () => {
  const ctx = useServerWithAdmin();

  it('H5: the password policy checks the NFKC form that is hashed: full-width "password" is refused like "passwordpassword"', async () => {
    for (const password of ['ｐａｓｓｗｏｒｄｐａｓｓｗｏｒｄ', 'passwordpassword']) {
      const created = await ctx.server.request('POST', '/v1/admin/users', { token: ctx.admin.accessToken, body: { username: `nfkc-${password.length}-${password.charCodeAt(0)}`, password, permissions: [] } });
      assertError(created, 400, 'password_too_common');
    }
    // A single repeated character and the username, written with compatibility characters.
    const repeated = await ctx.server.request('POST', '/v1/admin/users', { token: ctx.admin.accessToken, body: { username: 'repeats', password: 'ａ'.repeat(20), permissions: [] } });
    assertError(repeated, 400, 'password_too_common');
    const sameAsName = await ctx.server.request('POST', '/v1/admin/users', { token: ctx.admin.accessToken, body: { username: 'longusername12345', password: 'ｌｏｎｇｕｓｅｒｎａｍｅ１２３４５', permissions: [] } });
    assertError(sameAsName, 400, 'password_too_common');
  });

  it('H6: inside the grace window a rotated refresh token is exchanged once more at most; the next attempt ends the session', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, []);
    const refresh = (token: string) => ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: token } });
    const first = await refresh(user.refreshToken);
    assert.equal(first.status, 200, first.text);
    const second = await refresh(user.refreshToken);
    assert.equal(second.status, 200, 'a second tab refreshing at the same moment still gets a pair');
    assertError(await refresh(user.refreshToken), 401, 'invalid_refresh_token');
    for (const successor of [first.body.refresh_token, second.body.refresh_token]) {
      assertError(await refresh(successor), 401, 'invalid_refresh_token');
    }
  });

  it('H10: a session whose account must change its password may only read me, change the password and log out', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    const flagged = await ctx.server.request('PUT', `/v1/admin/users/${user.id}/password`, {
      token: ctx.admin.accessToken,
      body: { new_password: 'a temporary passphrase 1', must_change_password: true },
    });
    assert.equal(flagged.status, 204, flagged.text);
    const pair = await login(ctx.server, user.username, 'a temporary passphrase 1');
    assert.equal(pair.must_change_password, true);
    const me = await ctx.server.request('GET', '/v1/auth/me', { token: pair.access_token });
    assert.equal(me.status, 200);
    assert.equal(me.body.must_change_password, true);
    assertError(await ctx.server.request('GET', '/v1/models', { token: pair.access_token }), 403, 'password_change_required');
    assertError(await ctx.server.request('POST', '/v1/admin/keys', { token: pair.access_token, body: { name: 'k' } }), 403, 'password_change_required');
    const changed = await ctx.server.request('PUT', '/v1/auth/me/password', {
      token: pair.access_token,
      body: { current_password: 'a temporary passphrase 1', new_password: 'my very own passphrase now' },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await ctx.server.request('GET', '/v1/models', { token: changed.body.access_token })).status, 200);
    const loggedOut = await ctx.server.request('POST', '/v1/auth/logout', { body: { refresh_token: changed.body.refresh_token } });
    assert.equal(loggedOut.status, 200);
  });
});

describe('hardening: a proxy nobody trusts', () => {
  it('Lockout: listening on a non-loopback address without SVC_TRUSTED_PROXIES, the first forwarded header logs one warning naming the setting', async () => {
    await withTempHome('svc-warning-', async (home) => {
      const server = await startServerProcess({ SVC_HOME: home, SVC_AUTH_ADVANCED: 'true' }, ['--host', '0.0.0.0', '--log-level', 'warn']);
      let stdout = '';
      server.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      try {
        const client = contractClient(`http://127.0.0.1:${new URL(server.baseUrl).port}`);
        await setupAdmin(client);
        assert.ok(!stdout.includes('SVC_TRUSTED_PROXIES'), 'no warning before a forwarded header arrives');
        for (let i = 0; i < 3; i += 1) await client.request('GET', '/status', { headers: { 'x-forwarded-for': '198.51.100.9' } });
        const lines = await pollUntil(
          () => Promise.resolve(stdout.split('\n').filter((line) => line.includes('SVC_TRUSTED_PROXIES'))),
          (found) => found.length > 0,
          { timeoutMs: 10_000, intervalMs: 50 },
        );
        const warnings = lines.at(-1) ?? [];
        assert.equal(warnings.length, 1, 'one line, once');
        assert.match(warnings[0] as string, /forwarded headers/);
      } finally {
        await server.stop();
      }
    });
  });
});
