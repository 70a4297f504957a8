/**
 * Security requirements 1–6: password storage and policy, checked against a running server and the
 * hashes in its SQLite file.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { loadConfig } from '@svc/server';
import { assertError, login, startTestServer, uniqueUsername, useServerWithAdmin, withTempHome, withTestServer } from '@svc/server/testing';
import { countUsers, withDatabase } from './support.js';

/** The parts of a PHC-format argon2 hash. */
interface Argon2Hash {
  variant: string;
  version: number;
  m: number;
  t: number;
  p: number;
  salt: string;
  hash: string;
}

function parseArgon2(phc: string): Argon2Hash {
  const match = /^\$(argon2(?:id|i|d))\$v=(\d+)\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(phc);
  assert.ok(match, `not a PHC argon2 hash: ${phc.slice(0, 40)}…`);
  return {
    variant: match[1] as string,
    version: Number(match[2]),
    m: Number(match[3]),
    t: Number(match[4]),
    p: Number(match[5]),
    salt: match[6] as string,
    hash: match[7] as string,
  };
}

describe('security: passwords (R1–R6)', () => {
  const ctx = useServerWithAdmin();

  const storedHash = async (username: string): Promise<string> =>
    (await withDatabase(ctx.server.home, (db) => db.column<string>('SELECT password_hash FROM users WHERE username = ?', [username])))[0] as string;
  const userCount = (): Promise<number> => countUsers(ctx.server.home);

  /** Creates a user with exactly `password` (as the admin) and returns the response. */
  const create = (username: string, password: string) =>
    ctx.server.request('POST', '/v1/admin/users', { token: ctx.admin.accessToken, body: { username, password, permissions: [] } });
  const tryLogin = (username: string, password: string) => ctx.server.request('POST', '/v1/auth/login', { body: { username, password } });

  it('R1: stored hashes are argon2id with m >= 19456 KiB, t >= 2, p = 1', async () => {
    const username = uniqueUsername('r1');
    assert.equal((await create(username, 'a long passphrase for requirement one')).status, 201);
    for (const name of [ctx.admin.username, username]) {
      const phc = await storedHash(name);
      assert.ok(phc.startsWith('$argon2id$'), `hash of ${name} is not argon2id: ${phc.slice(0, 12)}`);
      const parsed = parseArgon2(phc);
      assert.equal(parsed.variant, 'argon2id');
      assert.equal(parsed.version, 19);
      assert.ok(parsed.m >= 19456, `m=${parsed.m}`);
      assert.ok(parsed.t >= 2, `t=${parsed.t}`);
      assert.equal(parsed.p, 1);
      // 16-byte salt and 32-byte output, in unpadded base64.
      assert.ok(Buffer.from(parsed.salt, 'base64').length >= 16, 'salt shorter than 128 bits');
      assert.ok(Buffer.from(parsed.hash, 'base64').length >= 32, 'hash shorter than 256 bits');
    }
  });

  it('R2: two users with the same password get different salts and hashes', async () => {
    const password = 'the very same passphrase for both';
    const first = uniqueUsername('r2a');
    const second = uniqueUsername('r2b');
    assert.equal((await create(first, password)).status, 201);
    assert.equal((await create(second, password)).status, 201);
    const a = parseArgon2(await storedHash(first));
    const b = parseArgon2(await storedHash(second));
    assert.notEqual(a.salt, b.salt);
    assert.notEqual(a.hash, b.hash);
    // Both still log in with the shared password.
    await login(ctx.server, first, password);
    await login(ctx.server, second, password);
  });

  it('R3: no truncation and no case folding: a 100-character password with its last character changed, or its case changed, fails', async () => {
    const username = uniqueUsername('r3');
    const password = 'Correct-Horse-Battery-Staple-'.repeat(4).slice(0, 99) + 'X';
    assert.equal([...password].length, 100);
    assert.equal((await create(username, password)).status, 201);
    await login(ctx.server, username, password);

    const wrong = [
      password.slice(0, 99) + 'Y', // only the last character differs
      password.slice(0, 99) + 'x', // only the case of the last character differs
      password.slice(0, 72), // a bcrypt-style 72-byte truncation
      password.toLowerCase(),
      password.toUpperCase(),
      password + 'X', // one character longer
    ];
    for (const attempt of wrong) {
      const response = await tryLogin(username, attempt);
      assertError(response, 401, 'invalid_credentials', `a variant of length ${attempt.length} logged in`);
    }
    // Usernames are case-insensitive identifiers, but the password stays exact under another case of the name.
    assert.equal((await tryLogin(username.toUpperCase(), password)).status, 200);
    assert.equal((await tryLogin(username.toUpperCase(), password.toLowerCase())).status, 401);
  });

  it('R4: the minimum is 15 code points by default and reported by the setup status', async () => {
    const status = await ctx.server.request('GET', '/v1/admin/setup/status');
    assert.equal(status.body.password_min_length, 15);
    const short = await create(uniqueUsername('r4s'), 'fourteen chars');
    assert.equal('fourteen chars'.length, 14);
    assertError(short, 400, 'password_too_short');
    assert.equal(short.body.error.param, 'password');
    const username = uniqueUsername('r4m');
    assert.equal((await create(username, 'fifteen chars!!')).status, 201);
    await login(ctx.server, username, 'fifteen chars!!');
  });

  it('R4: a 64-character password and a 1024-character password are accepted', async () => {
    for (const length of [64, 1024]) {
      const username = uniqueUsername(`r4l${length}`);
      const password = Array.from({ length }, (_, i) => 'abcdefghijklmnopqrstuvwxyz0123456789 '[(i * 7) % 37]).join('');
      assert.equal(password.length, length);
      assert.equal((await create(username, password)).status, 201, `length ${length}`);
      await login(ctx.server, username, password);
    }
  });

  it('R4: the minimum is configurable and never below 8', async () => {
    assert.throws(() => loadConfig({ SVC_HOME: ctx.server.home, SVC_PASSWORD_MIN_LENGTH: '7' }), /SVC_PASSWORD_MIN_LENGTH/);
    assert.throws(() => loadConfig({ SVC_HOME: ctx.server.home, SVC_PASSWORD_MIN_LENGTH: '0' }), /SVC_PASSWORD_MIN_LENGTH/);
    await withTempHome('svc-r4-', async (home) => {
      await assert.rejects(startTestServer({ home, env: { SVC_PASSWORD_MIN_LENGTH: '7' } }), /SVC_PASSWORD_MIN_LENGTH/);
    });
    await withTestServer({ env: { SVC_PASSWORD_MIN_LENGTH: '8' } }, async (relaxed) => {
      assert.equal((await relaxed.request('GET', '/v1/admin/setup/status')).body.password_min_length, 8);
      assert.equal((await relaxed.request('POST', '/v1/admin/setup', { body: { username: 'admin', password: 'seven c' } })).status, 400);
      assert.equal((await relaxed.request('POST', '/v1/admin/setup', { body: { username: 'admin', password: 'eight ch' } })).status, 201);
    });
  });

  it('R4: a 10 kB password is refused with 400 by the contract, before any hashing', async () => {
    const huge = 'x1y2z3w4'.repeat(1280);
    assert.equal(huge.length, 10_240);
    const before = await userCount();
    const username = uniqueUsername('r4h');

    const created = await create(username, huge);
    assertError(created, 400, 'invalid_request');
    assert.equal(created.body.error.param, 'password');
    assert.equal(await userCount(), before, 'a user was created');

    const setup = await ctx.server.request('POST', '/v1/admin/setup', { body: { username, password: huge } });
    assert.equal(setup.status, 400, 'the contract refuses the body before the handler runs');

    // Login with a 10 kB password for an existing account answers 400, not 401: the request never
    // reached password verification (a verification would have answered invalid_credentials).
    const loginAttempt = await tryLogin(ctx.admin.username, huge);
    assertError(loginAttempt, 400, 'invalid_request');

    const change = await ctx.server.request('PUT', '/v1/auth/me/password', {
      token: ctx.admin.accessToken,
      body: { current_password: ctx.admin.password, new_password: huge },
    });
    assertError(change, 400, 'invalid_request');
    // The admin's password is unchanged.
    await login(ctx.server, ctx.admin.username, ctx.admin.password);

    // One code point over the bound is refused too; far larger bodies stop at the body limit.
    assert.equal((await create(uniqueUsername('r4o'), 'a'.repeat(1024) + 'b')).status, 400);
    const enormous = await create(uniqueUsername('r4e'), 'z'.repeat(100_000));
    assertError(enormous, 413, 'payload_too_large');
    assert.equal(await userCount(), before);
  });

  it('R5: a common password is refused with password_too_common and a reason; no composition rules', async () => {
    for (const common of ['passwordpassword', 'PasswordPassword', 'qwertyuiopasdfgh']) {
      const response = await create(uniqueUsername('r5c'), common);
      assertError(response, 400, 'password_too_common', common);
      assert.equal(response.body.error.param, 'password');
      assert.match(response.body.detail, /common|guess/i, 'the reason is given');
    }
    // The username itself and a single repeated character are refused as too easy.
    const username = uniqueUsername('r5-username');
    assert.ok(username.length >= 15);
    assert.equal((await create(username, username)).body.error.code, 'password_too_common');
    assert.equal((await create(uniqueUsername('r5r'), 'aaaaaaaaaaaaaaaaaaaa')).body.error.code, 'password_too_common');

    // No composition rules: only lowercase letters, only digits, no symbols — all accepted.
    for (const plain of ['onlylowercaseletters', '83920174658392017465', 'lowercase words with spaces']) {
      const name = uniqueUsername('r5p');
      assert.equal((await create(name, plain)).status, 201, plain);
      await login(ctx.server, name, plain);
    }
  });

  it('R5: Unicode is counted per code point', async () => {
    // 15 astral-plane code points are 30 UTF-16 units and 60 UTF-8 bytes: long enough exactly.
    const emoji = [...'🐉🦊🐙🦉🐢🦋🐝🦀🐬🦒🐌🦔🐧🦜🐳'];
    assert.equal(emoji.length, 15);
    const fifteen = emoji.join('');
    assert.equal(fifteen.length, 30);
    const name = uniqueUsername('r5u');
    assert.equal((await create(name, fifteen)).status, 201);
    await login(ctx.server, name, fifteen);

    // 14 of them are 28 UTF-16 units, still 14 code points: too short.
    const fourteen = emoji.slice(0, 14).join('');
    const short = await create(uniqueUsername('r5s'), fourteen);
    assertError(short, 400, 'password_too_short');

    // The upper bound counts code points too: 1024 astral code points (2048 UTF-16 units) are accepted.
    const long = Array.from({ length: 1024 }, (_, i) => emoji[i % 15]).join('');
    assert.equal(long.length, 2048);
    const longName = uniqueUsername('r5l');
    assert.equal((await create(longName, long)).status, 201);
    await login(ctx.server, longName, long);
  });

  it('R6: changing one\'s own password needs the current one, through PUT /v1/auth/me/password', async () => {
    const username = uniqueUsername('r6me');
    const password = 'original passphrase of r6';
    assert.equal((await create(username, password)).status, 201);
    const tokens = await login(ctx.server, username, password);

    const missing = await ctx.server.request('PUT', '/v1/auth/me/password', { token: tokens.access_token, body: { new_password: 'a brand new passphrase' } });
    assert.equal(missing.status, 400);
    const wrong = await ctx.server.request('PUT', '/v1/auth/me/password', {
      token: tokens.access_token,
      body: { current_password: 'not the current passphrase', new_password: 'a brand new passphrase' },
    });
    assertError(wrong, 403, 'current_password_incorrect');
    assert.equal((await tryLogin(username, 'a brand new passphrase')).status, 401, 'the password changed anyway');

    const right = await ctx.server.request('PUT', '/v1/auth/me/password', {
      token: tokens.access_token,
      body: { current_password: password, new_password: 'a brand new passphrase' },
    });
    assert.equal(right.status, 200);
    assert.equal((await tryLogin(username, password)).status, 401);
    await login(ctx.server, username, 'a brand new passphrase');
  });

  it('R6: changing one\'s own password through PUT /v1/admin/users/{own id}/password needs the current one too', async () => {
    const username = uniqueUsername('r6adm');
    const password = 'manager passphrase of r6';
    const created = await ctx.server.request('POST', '/v1/admin/users', {
      token: ctx.admin.accessToken,
      body: { username, password, permissions: ['users:manage'] },
    });
    assert.equal(created.status, 201);
    const id = created.body.id as string;
    const tokens = await login(ctx.server, username, password);
    const path = `/v1/admin/users/${id}/password`;

    const withoutCurrent = await ctx.server.request('PUT', path, { token: tokens.access_token, body: { new_password: 'stolen session passphrase' } });
    assertError(withoutCurrent, 403, 'current_password_incorrect');
    const withWrong = await ctx.server.request('PUT', path, {
      token: tokens.access_token,
      body: { new_password: 'stolen session passphrase', current_password: 'a guessed passphrase!' },
    });
    assertError(withWrong, 403, 'current_password_incorrect');
    assert.equal((await tryLogin(username, 'stolen session passphrase')).status, 401);
    await login(ctx.server, username, password);

    // The admin's own id through the admin route: the same rule.
    const adminSelf = await ctx.server.request('PUT', `/v1/admin/users/${ctx.admin.id}/password`, {
      token: ctx.admin.accessToken,
      body: { new_password: 'stolen session passphrase' },
    });
    assertError(adminSelf, 403, 'current_password_incorrect');

    const withRight = await ctx.server.request('PUT', path, {
      token: tokens.access_token,
      body: { new_password: 'a chosen new passphrase', current_password: password },
    });
    assert.equal(withRight.status, 204);
    assert.equal((await tryLogin(username, password)).status, 401);
    await login(ctx.server, username, 'a chosen new passphrase');
  });
});
