/**
 * Security requirements 12–20: access tokens (algorithm pinning, signature, expiry, token kinds,
 * revocation) and refresh tokens (rotation, reuse detection, absolute session lifetime). Tokens are
 * forged by hand with the server's real signing secret, read from `{home}/auth/jwt_secret_key`, so
 * that each refusal is about the one thing a test changes.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { beforeAll, describe, it } from 'vitest';
import {
  adminCredentials,
  assertError,
  createKey,
  createUser,
  login,
  ManualClock,
  setupAdmin,
  startServerProcess,
  startTestServer,
  useServerWithAdmin,
  withTempHome,
  withTestServer,
  type LoggedInUser,
  type TestResponse,
} from '@svc/server/testing';
import { base64url, decodeJwt, encryptionKey, flipSignatureByte, forgeJwt, jwtSecret, withDatabase } from './support.js';

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('security: access tokens (R12–R16)', () => {
  const ctx = useServerWithAdmin();
  let user: LoggedInUser;
  let secret: string;
  /** The header and claims of a genuine token of `user`. */
  let header: Record<string, unknown>;
  let claims: Record<string, unknown>;

  /** The status and error code of GET /v1/auth/me with `token`. */
  const me = async (token: string) => {
    const response = await ctx.server.request('GET', '/v1/auth/me', { token });
    return { status: response.status, code: response.status === 200 ? null : (response.body.error.code as string), body: response.body };
  };
  const assertRefused = async (token: string, what: string, code?: string) => {
    const result = await me(token);
    assert.equal(result.status, 401, `${what} was accepted`);
    if (code !== undefined) assert.equal(result.code, code, what);
  };

  beforeAll(async () => {
    user = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    secret = await jwtSecret(ctx.server.home);
    ({ header, payload: claims } = decodeJwt(user.accessToken));
  });

  it('R12 (control): the genuine token, and the same header and claims signed here with the real secret, are accepted', async () => {
    assert.deepEqual(header, { alg: 'HS256', typ: 'at+jwt' });
    assert.equal((await me(user.accessToken)).status, 200);
    const resigned = await me(forgeJwt(header, { ...claims, jti: randomUUID() }, secret));
    assert.equal(resigned.status, 200, 'the test cannot sign like the server; every refusal below would be meaningless');
    assert.equal(resigned.body.id, user.id);
  });

  it('R12: a token with alg none (any case) is refused with 401', async () => {
    for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
      const unsigned = forgeJwt({ ...header, alg }, claims, secret, null);
      await assertRefused(unsigned, `alg ${alg} without signature`, 'invalid_token');
      // Even with a valid HMAC appended, "none" is not HS256.
      await assertRefused(forgeJwt({ ...header, alg }, claims, secret, 'HS256'), `alg ${alg} with an HS256 signature`, 'invalid_token');
    }
  });

  it('R12: HS384 and HS512 tokens signed with the real secret are refused with 401', async () => {
    await assertRefused(forgeJwt({ ...header, alg: 'HS384' }, claims, secret), 'HS384', 'invalid_token');
    await assertRefused(forgeJwt({ ...header, alg: 'HS512' }, claims, secret), 'HS512', 'invalid_token');
    // The algorithm name is case-sensitive (RFC 7515): "hs256" is not HS256.
    await assertRefused(forgeJwt({ ...header, alg: 'hs256' }, claims, secret, 'HS256'), 'alg hs256', 'invalid_token');
  });

  it('R12: an RS256 header is refused with 401, whether HMAC-signed with the secret (key confusion) or truly RSA-signed', async () => {
    await assertRefused(forgeJwt({ ...header, alg: 'RS256' }, claims, secret, 'HS256'), 'RS256 header with an HMAC signature', 'invalid_token');
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rsaHeader = { ...header, alg: 'RS256', jwk: publicKey.export({ format: 'jwk' }) };
    const input = `${base64url(JSON.stringify(rsaHeader))}.${base64url(JSON.stringify(claims))}`;
    const rsaToken = `${input}.${base64url(sign('sha256', Buffer.from(input), privateKey))}`;
    await assertRefused(rsaToken, 'RS256 signed with an embedded key', 'invalid_token');
  });

  it('R12: a token without alg is refused with 401', async () => {
    const { alg: _alg, ...withoutAlg } = header;
    await assertRefused(forgeJwt(withoutAlg, claims, secret, 'HS256'), 'missing alg', 'invalid_token');
    await assertRefused(forgeJwt({ ...withoutAlg, alg: '' }, claims, secret, 'HS256'), 'empty alg', 'invalid_token');
    await assertRefused(forgeJwt({ ...withoutAlg, alg: null }, claims, secret, 'HS256'), 'null alg', 'invalid_token');
  });

  it('R13: one flipped signature byte, or changed claims under the old signature, give 401', async () => {
    for (const index of [0, 1, 15, 16, 30, 31]) {
      await assertRefused(flipSignatureByte(user.accessToken, index), `signature byte ${index} flipped`, 'invalid_token');
    }
    const [, , signature] = user.accessToken.split('.');
    const changed = forgeJwt(header, { ...claims, sub: ctx.admin.id }, secret).split('.');
    await assertRefused(`${changed[0]}.${changed[1]}.${signature}`, 'claims changed, signature kept', 'invalid_token');
    // A token cut short or without its signature part.
    await assertRefused(user.accessToken.split('.').slice(0, 2).join('.') + '.', 'empty signature', 'invalid_token');
    await assertRefused(user.accessToken.split('.').slice(0, 2).join('.'), 'two parts', 'invalid_token');
    // The genuine token still works: nothing above was refused for another reason.
    assert.equal((await me(user.accessToken)).status, 200);
  });

  it('R13: the signature is checked before the claims: an expired token with a bad signature is invalid_token, not token_expired', async () => {
    const expiredClaims = { ...claims, iat: nowSeconds() - 7200, exp: nowSeconds() - 3600 };
    await assertRefused(forgeJwt(header, expiredClaims, secret), 'expired, well signed', 'token_expired');
    await assertRefused(forgeJwt(header, expiredClaims, randomBytes(32).toString('hex')), 'expired, signed with another secret', 'invalid_token');
  });

  it('R13: jku, x5u, jwk and kid headers are ignored: with the real secret the token verifies, with another secret it does not, and no URL is fetched', async () => {
    let fetched = 0;
    const trap: Server = createServer((_request, response) => {
      fetched += 1;
      response.end('{}');
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    const trapUrl = `http://127.0.0.1:${(trap.address() as { port: number }).port}`;
    try {
      const attackerSecret = randomBytes(32);
      const attackerJwk = { kty: 'oct', k: base64url(attackerSecret), alg: 'HS256' };
      const extras: Record<string, unknown>[] = [
        { jku: `${trapUrl}/jwks.json` },
        { x5u: `${trapUrl}/cert.pem` },
        { jwk: attackerJwk },
        { kid: 'attacker-key' },
        { kid: '../../../../dev/null' },
        { jku: `${trapUrl}/jwks.json`, jwk: attackerJwk, kid: 'attacker-key', x5u: `${trapUrl}/cert.pem` },
      ];
      for (const extra of extras) {
        const what = Object.keys(extra).join('+');
        const genuine = await me(forgeJwt({ ...header, ...extra }, { ...claims, jti: randomUUID() }, secret));
        assert.equal(genuine.status, 200, `${what} with the real secret should verify as usual`);
        await assertRefused(forgeJwt({ ...header, ...extra }, { ...claims, jti: randomUUID() }, attackerSecret), `${what} with the attacker's secret`, 'invalid_token');
      }
      assert.equal(fetched, 0, 'the server fetched a key URL named by a token');
    } finally {
      await new Promise<void>((resolve) => trap.close(() => resolve()));
    }
  });

  it('R14: an expired token gives 401 token_expired, also when it expired just beyond the 60 s leeway', async () => {
    for (const ago of [61, 3600, 86_400 * 30]) {
      const expired = forgeJwt(header, { ...claims, jti: randomUUID(), iat: nowSeconds() - ago - 1800, exp: nowSeconds() - ago }, secret);
      await assertRefused(expired, `expired ${ago} s ago`, 'token_expired');
    }
  });

  it('R14: a token without exp, or with a non-numeric exp, gives 401', async () => {
    const { exp: _exp, ...withoutExp } = claims;
    await assertRefused(forgeJwt(header, { ...withoutExp, jti: randomUUID() }, secret), 'no exp', 'invalid_token');
    await assertRefused(forgeJwt(header, { ...claims, jti: randomUUID(), exp: String(nowSeconds() + 600) }, secret), 'string exp', 'invalid_token');
    await assertRefused(forgeJwt(header, { ...claims, jti: randomUUID(), exp: null }, secret), 'null exp', 'invalid_token');
  });

  it('R15: a refresh token used as a bearer token gives 401', async () => {
    const tokens = await login(ctx.server, user.username, user.password);
    await assertRefused(tokens.refresh_token, 'refresh token as bearer', 'invalid_token');
    // It is still a working refresh token: the refusal was about its kind.
    assert.equal((await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: tokens.refresh_token } })).status, 200);
  });

  it('R15: an access token (or an API key) presented at /v1/auth/refresh gives 401', async () => {
    const tokens = await login(ctx.server, user.username, user.password);
    const withAccess = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: tokens.access_token } });
    assertError(withAccess, 401, 'invalid_refresh_token');
    const key = await createKey(ctx.server, ctx.admin.accessToken, { name: 'r15' });
    const withKey = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: key.key } });
    assertError(withKey, 401, 'invalid_refresh_token');
    // The access token keeps working as an access token.
    assert.equal((await me(tokens.access_token)).status, 200);
  });

  it('R15: a JWT of another type (typ JWT, or no typ) signed with the real secret gives 401', async () => {
    await assertRefused(forgeJwt({ ...header, typ: 'JWT' }, { ...claims, jti: randomUUID() }, secret), 'typ JWT', 'invalid_token');
    await assertRefused(forgeJwt({ ...header, typ: 'refresh+jwt' }, { ...claims, jti: randomUUID() }, secret), 'typ refresh+jwt', 'invalid_token');
    const { typ: _typ, ...withoutTyp } = header;
    await assertRefused(forgeJwt(withoutTyp, { ...claims, jti: randomUUID() }, secret), 'no typ', 'invalid_token');
  });

  it('R16: a validly signed token of a deleted user gives 401', async () => {
    const victim = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    assert.equal((await me(victim.accessToken)).status, 200);
    const { payload } = decodeJwt(victim.accessToken);
    assert.equal((await ctx.server.request('DELETE', `/v1/admin/users/${victim.id}`, { token: ctx.admin.accessToken })).status, 204);
    await assertRefused(victim.accessToken, 'the deleted user\'s own token');
    await assertRefused(forgeJwt(header, { ...payload, jti: randomUUID() }, secret), 'a fresh token for the deleted user');
    await assertRefused(forgeJwt(header, { ...claims, sub: randomUUID(), jti: randomUUID() }, secret), 'a token for an id that never existed');
  });

  it('R16: a validly signed token of a disabled user gives 401, even one carrying the current token version', async () => {
    const victim = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    assert.equal((await me(victim.accessToken)).status, 200);
    assert.equal((await ctx.server.request('PUT', `/v1/admin/users/${victim.id}`, { token: ctx.admin.accessToken, body: { enabled: false } })).status, 200);
    await assertRefused(victim.accessToken, 'the disabled user\'s own token');
    const [version] = await withDatabase(ctx.server.home, (db) => db.column<number>('SELECT token_version FROM users WHERE id = ?', [victim.id]));
    const current = forgeJwt(header, { ...decodeJwt(victim.accessToken).payload, ver: version, jti: randomUUID() }, secret);
    await assertRefused(current, 'a token at the current version', 'account_disabled');
  });
});

describe('security: refresh tokens and sessions (R17–R19)', () => {
  it('R17: each refresh token works once; reusing a rotated one after the grace window ends the whole family', async () => {
    const clock = new ManualClock();
    await withTestServer({ config: { refreshReuseGraceSeconds: 0 }, clock }, async (server) => {
      const admin = await setupAdmin(server);
      const refresh = (token: string) => server.request('POST', '/v1/auth/refresh', { body: { refresh_token: token } });

      const first = await refresh(admin.refreshToken);
      assert.equal(first.status, 200);
      const second = await refresh(first.body.refresh_token);
      assert.equal(second.status, 200);
      const newest = second.body.refresh_token as string;
      // Make sure "now - rotated_at > 0" holds for a grace window of zero.
      clock.advance(25);

      const reused = await refresh(admin.refreshToken);
      assertError(reused, 401, 'invalid_refresh_token');
      const afterReuse = await refresh(newest);
      assertError(afterReuse, 401, 'invalid_refresh_token', 'the newest token of the family survived the reuse');
      assert.equal((await refresh(first.body.refresh_token)).status, 401);

      // Only that family ended: another session of the same user is untouched, and login works.
      const other = await login(server, admin.username, admin.password);
      assert.equal((await refresh(other.refresh_token)).status, 200);
    });
  });

  it('R17: the grace window (refreshReuseGraceSeconds, 10 s by default) lets concurrent refreshes of one token both succeed', async () => {
    await withTestServer(async (server) => {
      assert.equal(server.config.refreshReuseGraceSeconds, 10);
      const admin = await setupAdmin(server);
      const [a, b] = await Promise.all(
        [1, 2].map(() => server.request('POST', '/v1/auth/refresh', { body: { refresh_token: admin.refreshToken } })),
      );
      assert.equal(a?.status, 200);
      assert.equal(b?.status, 200);
      assert.notEqual(a?.body.refresh_token, b?.body.refresh_token);
    });
  });

  it('R18: a session family has an absolute lifetime that rotation never extends', async () => {
    const clock = new ManualClock();
    await withTestServer({ config: { sessionMaxLifetimeSeconds: 3, refreshTokenTtlSeconds: 3600 }, clock }, async (server) => {
      assert.equal((await server.request('POST', '/v1/admin/setup', { body: adminCredentials })).status, 201);
      const tokens = await login(server, adminCredentials.username, adminCredentials.password);
      assert.ok(tokens.refresh_expires_in <= 3, `login: refresh_expires_in ${tokens.refresh_expires_in} exceeds the family's lifetime`);
      const family = async () =>
        (
          await withDatabase(server.home, (db) =>
            db.all<{ id: string; created_at: number; absolute_expires_at: number }>(
              `SELECT f.id, f.created_at, f.absolute_expires_at FROM refresh_families f
               JOIN refresh_tokens t ON t.family_id = f.id WHERE t.rotated_at IS NULL ORDER BY f.created_at DESC LIMIT 1`,
            ),
          )
        )[0];
      const start = await family();
      assert.ok(start !== undefined);
      assert.equal(start.absolute_expires_at - start.created_at, 3000);

      let current = tokens.refresh_token;
      const remaining: number[] = [tokens.refresh_expires_in];
      // Rotate until the last millisecond of the family's life: 1 s, 2 s, then 2.999 s after login.
      for (const step of [1000, 1000, 999]) {
        clock.advance(step);
        const response = await server.request('POST', '/v1/auth/refresh', { body: { refresh_token: current } });
        assert.equal(response.status, 200, `refreshing stopped ${clock.now() - start.created_at} ms into a 3000 ms family`);
        current = response.body.refresh_token as string;
        remaining.push(response.body.refresh_expires_in as number);
        // Rotation keeps the family and its absolute end.
        const now = await family();
        assert.equal(now?.id, start.id);
        assert.equal(now?.absolute_expires_at, start.absolute_expires_at);
      }
      clock.advance(1);
      const ended = await server.request('POST', '/v1/auth/refresh', { body: { refresh_token: current } });
      assertError(ended, 401, 'invalid_refresh_token', 'refreshing kept working past the absolute lifetime');
      for (let i = 1; i < remaining.length; i += 1) {
        assert.ok((remaining[i] as number) <= (remaining[i - 1] as number), `refresh_expires_in grew: ${remaining.join(',')}`);
      }
      assert.ok(remaining.every((s) => s <= 3), `refresh_expires_in above the family remainder: ${remaining.join(',')}`);
      // A new login starts a new family.
      const again = await login(server, adminCredentials.username, adminCredentials.password);
      assert.equal((await server.request('POST', '/v1/auth/refresh', { body: { refresh_token: again.refresh_token } })).status, 200);
    });
  });

  describe('R19: revocation of refresh and access tokens', () => {
    const ctx = useServerWithAdmin();

    /** A user with two independent sessions. */
    const userWithTwoSessions = async () => {
      const user = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
      const second = await login(ctx.server, user.username, user.password);
      return { user, sessions: [{ access: user.accessToken, refresh: user.refreshToken }, { access: second.access_token, refresh: second.refresh_token }] };
    };
    const assertAllDead = async (sessions: { access: string; refresh: string }[], what: string) => {
      for (const [i, session] of sessions.entries()) {
        const access = await ctx.server.request('GET', '/v1/auth/me', { token: session.access });
        assert.equal(access.status, 401, `${what}: access token of session ${i} still works`);
        const refresh = await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: session.refresh } });
        assert.equal(refresh.status, 401, `${what}: refresh token of session ${i} still works`);
      }
    };

    it('R19: changing one\'s own password revokes every session\'s refresh and access tokens', async () => {
      const { user, sessions } = await userWithTwoSessions();
      const changed = await ctx.server.request('PUT', '/v1/auth/me/password', {
        token: sessions[0]?.access as string,
        body: { current_password: user.password, new_password: 'a replacement passphrase' },
      });
      assert.equal(changed.status, 200);
      await assertAllDead(sessions, 'own password change');
      // The pair answered by the change is the one live session.
      assert.equal((await ctx.server.request('GET', '/v1/auth/me', { token: changed.body.access_token })).status, 200);
      assert.equal((await ctx.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: changed.body.refresh_token } })).status, 200);
    });

    it('R19: an administrator resetting a password revokes every session of that user', async () => {
      const { user, sessions } = await userWithTwoSessions();
      const reset = await ctx.server.request('PUT', `/v1/admin/users/${user.id}/password`, {
        token: ctx.admin.accessToken,
        body: { new_password: 'an administrator chose this' },
      });
      assert.equal(reset.status, 204);
      await assertAllDead(sessions, 'admin reset');
      await login(ctx.server, user.username, 'an administrator chose this');
    });

    it('R19: disabling a user revokes their sessions, and re-enabling does not revive the old tokens', async () => {
      const { user, sessions } = await userWithTwoSessions();
      assert.equal((await ctx.server.request('PUT', `/v1/admin/users/${user.id}`, { token: ctx.admin.accessToken, body: { enabled: false } })).status, 200);
      await assertAllDead(sessions, 'disable');
      assert.equal((await ctx.server.request('PUT', `/v1/admin/users/${user.id}`, { token: ctx.admin.accessToken, body: { enabled: true } })).status, 200);
      await assertAllDead(sessions, 'disable then enable');
      await login(ctx.server, user.username, user.password);
    });

    it('R19: deleting a user revokes their sessions, also against a new user of the same name', async () => {
      const { user, sessions } = await userWithTwoSessions();
      assert.equal((await ctx.server.request('DELETE', `/v1/admin/users/${user.id}`, { token: ctx.admin.accessToken })).status, 204);
      await assertAllDead(sessions, 'delete');
      const reborn = await ctx.server.request('POST', '/v1/admin/users', {
        token: ctx.admin.accessToken,
        body: { username: user.username, password: user.password, permissions: ['models:list'] },
      });
      assert.equal(reborn.status, 201);
      assert.notEqual(reborn.body.id, user.id);
      await assertAllDead(sessions, 'delete then re-create');
    });
    // Offline reset (svc-reset-auth-password) is not built yet; its test joins this block with it.
  });
});

describe('security: the signing secret (R20)', () => {
  it('R20: start-up stops when the JWT secret equals the encryption key, or is too short', async () => {
    await withTempHome('svc-r20-', async (home) => {
      const same = randomBytes(32).toString('hex');
      await assert.rejects(
        startServerProcess({ SVC_HOME: home, SVC_AUTH_JWT_SECRET_KEY: same, SVC_AUTH_ENCRYPTION_KEY: same }),
        /JWT signing secret and the API key encryption key must differ/,
      );
      for (const weak of ['too-short-a-secret', 'a1'.repeat(31) /* 62 hex digits: 248 bits */]) {
        await assert.rejects(startTestServer({ home, env: { SVC_AUTH_JWT_SECRET_KEY: weak } }), /SVC_AUTH_JWT_SECRET_KEY is too short: use at least 256 random bits/);
      }
      // The environment secret may not equal the encryption key the home's servers use either (the
      // generated file on SQLite, the deployment's variable on PostgreSQL).
      const first = await startTestServer({ home });
      await first.close();
      await assert.rejects(startTestServer({ home, env: { SVC_AUTH_JWT_SECRET_KEY: await encryptionKey(home) } }), /must differ/);
    });
  });
});
