/**
 * Security requirements 8–11: brute-force protection. Failed logins are counted per account and per
 * client IP, failed API keys and tokens per IP and per (IP, credential), in the database; lockouts
 * are temporary and grow; a success resets the count; an admin unlocks and unbans; a banned caller
 * gets 429 with Retry-After; settings persist and are validated.
 *
 * The servers here trust 127.0.0.1 as a proxy (SVC_TRUSTED_PROXIES), so an "attacker" is simulated
 * with `X-Forwarded-For: 203.0.113.x` while the administrator calls from 127.0.0.1 itself.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import {
  adminCredentials,
  assertError,
  createUser,
  ManualClock,
  setupAdmin,
  startTestServer,
  withTestServer,
  type TestResponse,
  type TestServer,
} from '@svc/server/testing';
import { withDatabase } from './support.js';

const proxied = { env: { SVC_TRUSTED_PROXIES: '127.0.0.1' }, securitySettings: 'production' as const };
const from = (ip: string) => ({ 'x-forwarded-for': ip });

async function badLogin(server: TestServer, username: string, ip: string, password = 'not the right passphrase'): Promise<TestResponse> {
  return server.request('POST', '/v1/auth/login', { body: { username, password }, headers: from(ip) });
}

async function settle(server: TestServer, token: string, update: Record<string, unknown>): Promise<void> {
  const response = await server.request('PUT', '/v1/admin/security/rate-limit', { token, body: update });
  assert.equal(response.status, 200, response.text);
}

function assertBanned(response: TestResponse, code: 'ip_banned' | 'key_banned', maxSeconds: number): void {
  assertError(response, 429, code);
  const retryAfter = Number(response.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= maxSeconds, `Retry-After: ${response.headers.get('retry-after')}`);
}

describe('security: login lockout per account (R8–R10)', () => {
  it('R9: failures are counted per account in the database; the lockout answers exactly like a wrong password (R8)', async () => {
    await withTestServer(proxied, async (server) => {
      const admin = await setupAdmin(server);
      await settle(server, admin.accessToken, { login: { failures_before_lockout: 3 } });
      const bob = await createUser(server, admin.accessToken, ['models:list']);
      const wrong: TestResponse[] = [];
      for (let i = 0; i < 3; i += 1) wrong.push(await badLogin(server, bob.username, `203.0.113.${i + 1}`));
      const [stored] = await withDatabase(server.home, (db) =>
        db.all<{ lockouts: number; banned_until: number }>("SELECT failures, lockouts, banned_until FROM brute_force_entries WHERE scope = 'account' AND subject = ?", [bob.id]),
      );
      assert.ok(stored !== undefined, 'no counter stored for the account');
      assert.equal(stored.lockouts, 1, 'the lockout is stored in the database');
      assert.ok(stored.banned_until > Date.now());

      const locked = await badLogin(server, bob.username, '203.0.113.9', bob.password);
      const unknown = await badLogin(server, 'nobody-by-this-name', '203.0.113.9');
      for (const response of [locked, unknown, wrong[0] as TestResponse]) {
        assertError(response, 401, 'invalid_credentials');
        assert.equal(response.text, locked.text, 'same body for locked, unknown and wrong password');
        assert.equal(response.headers.get('www-authenticate'), locked.headers.get('www-authenticate'));
      }
      const list = await server.request('GET', '/v1/admin/security/locked-accounts', { token: admin.accessToken });
      assert.equal(list.status, 200);
      assert.equal(list.body.length, 1);
      assert.equal(list.body[0].user_id, bob.id);
      assert.equal(list.body[0].username, bob.username);
      assert.ok(list.body[0].remaining_seconds > 0 && list.body[0].remaining_seconds <= 60);
    });
  });

  it('R10: repeated lockouts wait longer each time (wait increment × lockouts)', async () => {
    const clock = new ManualClock();
    await withTestServer({ ...proxied, clock }, async (server) => {
      const admin = await setupAdmin(server);
      await settle(server, admin.accessToken, { login: { failures_before_lockout: 2, wait_increment_seconds: 1, max_wait_seconds: 900 } });
      const bob = await createUser(server, admin.accessToken, []);
      await badLogin(server, bob.username, '203.0.113.1');
      await badLogin(server, bob.username, '203.0.113.1');
      const first = await server.request('GET', '/v1/admin/security/locked-accounts', { token: admin.accessToken });
      assert.equal(first.body[0].lockouts, 1);
      assert.ok(first.body[0].remaining_seconds <= 1);
      // The first wait (1 s) ends by itself.
      clock.advance(999);
      assert.equal((await server.request('GET', '/v1/admin/security/locked-accounts', { token: admin.accessToken })).body.length, 1, 'still locked before the wait ends');
      clock.advance(1);
      assert.equal((await server.request('GET', '/v1/admin/security/locked-accounts', { token: admin.accessToken })).body.length, 0, 'the lockout ended with its wait');
      await badLogin(server, bob.username, '203.0.113.1');
      await badLogin(server, bob.username, '203.0.113.1');
      const second = await server.request('GET', '/v1/admin/security/locked-accounts', { token: admin.accessToken });
      assert.equal(second.body[0].lockouts, 2);
      assert.ok(second.body[0].remaining_seconds === 2, `second wait: ${second.body[0].remaining_seconds} s`);
      assertError(await badLogin(server, bob.username, '203.0.113.1', bob.password), 401, 'invalid_credentials');
    });
  });

  it('R10: a successful login resets the account failure count', async () => {
    await withTestServer(proxied, async (server) => {
      const admin = await setupAdmin(server);
      await settle(server, admin.accessToken, { login: { failures_before_lockout: 3 } });
      const bob = await createUser(server, admin.accessToken, []);
      await badLogin(server, bob.username, '203.0.113.1');
      await badLogin(server, bob.username, '203.0.113.1');
      const success = await badLogin(server, bob.username, '203.0.113.1', bob.password);
      assert.equal(success.status, 200, 'two failures do not lock');
      await badLogin(server, bob.username, '203.0.113.1');
      await badLogin(server, bob.username, '203.0.113.1');
      assert.equal((await badLogin(server, bob.username, '203.0.113.1', bob.password)).status, 200, 'the count started over after the success');
      for (let i = 0; i < 3; i += 1) await badLogin(server, bob.username, '203.0.113.1');
      assertError(await badLogin(server, bob.username, '203.0.113.1', bob.password), 401, 'invalid_credentials');
    });
  });

  it('R10: an admin unlocks one account or all of them; the admin cannot be locked out for good', async () => {
    await withTestServer(proxied, async (server) => {
      const admin = await setupAdmin(server);
      await settle(server, admin.accessToken, { login: { failures_before_lockout: 2 } });
      const bob = await createUser(server, admin.accessToken, []);
      const carol = await createUser(server, admin.accessToken, []);
      for (const user of [bob, carol]) for (let i = 0; i < 2; i += 1) await badLogin(server, user.username, '203.0.113.1');
      const one = await server.request('POST', '/v1/admin/security/unlock-account', { token: admin.accessToken, body: { user_id: bob.id } });
      assert.deepEqual(one.body, { unbanned: 1 });
      assert.equal((await badLogin(server, bob.username, '203.0.113.1', bob.password)).status, 200);
      assertError(await badLogin(server, carol.username, '203.0.113.1', carol.password), 401, 'invalid_credentials');
      const all = await server.request('POST', '/v1/admin/security/unlock-all-accounts', { token: admin.accessToken });
      assert.deepEqual(all.body, { unbanned: 1 });
      assert.equal((await badLogin(server, carol.username, '203.0.113.1', carol.password)).status, 200);
      // Locking the admin is temporary: the wait is bounded by max_wait_seconds (15 minutes by default).
      for (let i = 0; i < 2; i += 1) await badLogin(server, adminCredentials.username, '203.0.113.66');
      const locked = await server.request('GET', '/v1/admin/security/locked-accounts', { token: admin.accessToken });
      assert.ok(locked.body.every((entry: { remaining_seconds: number }) => entry.remaining_seconds <= 900));
    });
  });
});

describe('security: browser-session logins (the web UI) count like every other login (R8–R11)', () => {
  const badSession = (server: TestServer, username: string, ip: string, password = 'not the right passphrase') =>
    server.request('POST', '/v1/auth/session', { body: { username, password }, headers: from(ip) });

  it('R9–R10: failed POST /v1/auth/session attempts lock the account, and the lockout answers like a wrong password (R8)', async () => {
    await withTestServer(proxied, async (server) => {
      const admin = await setupAdmin(server);
      await settle(server, admin.accessToken, { login: { failures_before_lockout: 3 } });
      const bob = await createUser(server, admin.accessToken, []);
      for (let i = 0; i < 3; i += 1) assertError(await badSession(server, bob.username, `203.0.113.${i + 1}`), 401, 'invalid_credentials');
      const locked = await badSession(server, bob.username, '203.0.113.9', bob.password);
      assertError(locked, 401, 'invalid_credentials');
      assert.equal(locked.headers.get('set-cookie'), null, 'no session cookie for a locked account');
      const list = await server.request('GET', '/v1/admin/security/locked-accounts', { token: admin.accessToken });
      assert.deepEqual(list.body.map((entry: { user_id: string }) => entry.user_id), [bob.id]);
      // The lockout is shared with the token login: the JSON route refuses bob too.
      assertError(await badLogin(server, bob.username, '203.0.113.9', bob.password), 401, 'invalid_credentials');
    });
  });

  it('R11: failed browser-session logins from one IP ban it (429 ip_banned with Retry-After)', async () => {
    await withTestServer(proxied, async (server) => {
      const admin = await setupAdmin(server);
      await settle(server, admin.accessToken, { ip: { max_failures: 3, ban_seconds: 120 } });
      for (let i = 0; i < 3; i += 1) assertError(await badSession(server, `guess${i}`, '203.0.113.7'), 401, 'invalid_credentials');
      assertBanned(await badSession(server, adminCredentials.username, '203.0.113.7', adminCredentials.password), 'ip_banned', 120);
      assert.equal((await badSession(server, adminCredentials.username, '203.0.113.8', adminCredentials.password)).status, 200, 'another IP is served');
    });
  });
});

describe('security: bans per IP and per (IP, key) (R9, R11)', () => {
  it('R11: failed logins from one IP ban it: 429 ip_banned with Retry-After for its logins and failing credentials (a live credential passes); other IPs are served', async () => {
    await withTestServer(proxied, async (server) => {
      const admin = await setupAdmin(server);
      await settle(server, admin.accessToken, { ip: { max_failures: 3, ban_seconds: 120 } });
      for (let i = 0; i < 3; i += 1) assertError(await badLogin(server, `guess${i}`, '203.0.113.7'), 401, 'invalid_credentials');
      assertBanned(await badLogin(server, adminCredentials.username, '203.0.113.7', adminCredentials.password), 'ip_banned', 120);
      assertBanned(await server.request('GET', '/v1/auth/me', { headers: from('203.0.113.7') }), 'ip_banned', 120);
      assertBanned(await server.request('GET', '/v1/auth/me', { token: 'not.a.jwt', headers: from('203.0.113.7') }), 'ip_banned', 120);
      assert.equal((await server.request('GET', '/v1/auth/me', { token: admin.accessToken, headers: from('203.0.113.7') })).status, 200, 'a live credential passes the ban');
      assert.equal((await server.request('GET', '/v1/auth/me', { token: admin.accessToken, headers: from('203.0.113.8') })).status, 200);
      const banned = await server.request('GET', '/v1/admin/security/banned-ips', { token: admin.accessToken });
      assert.deepEqual(banned.body.map((ban: { ip: string }) => ban.ip), ['203.0.113.7']);
      assert.ok(banned.body[0].remaining_seconds > 0 && banned.body[0].remaining_seconds <= 120);
    });
  });

  it('R9: failed API keys and tokens count per IP and per (IP, key); a key ban names the credential by digest', async () => {
    await withTestServer(proxied, async (server) => {
      const admin = await setupAdmin(server);
      await settle(server, admin.accessToken, { ip: { max_failures: 100 }, key: { max_failures: 3, ban_seconds: 60 } });
      const guessed = `sk-svc-${'A'.repeat(49)}`;
      for (let i = 0; i < 3; i += 1) {
        assertError(await server.request('GET', '/v1/auth/me', { token: guessed, headers: from('203.0.113.20') }), 401, 'invalid_api_key');
      }
      assertBanned(await server.request('GET', '/v1/auth/me', { token: guessed, headers: from('203.0.113.20') }), 'key_banned', 60);
      // The same credential from another IP, and another credential from the same IP, still get their 401.
      assertError(await server.request('GET', '/v1/auth/me', { token: guessed, headers: from('203.0.113.21') }), 401, 'invalid_api_key');
      assertError(await server.request('GET', '/v1/auth/me', { token: 'not.a.jwt', headers: from('203.0.113.20') }), 401, 'invalid_token');
      const banned = await server.request('GET', '/v1/admin/security/banned-keys', { token: admin.accessToken });
      assert.equal(banned.body.length, 1);
      assert.equal(banned.body[0].ip, '203.0.113.20');
      assert.match(banned.body[0].key_id, /^sha256:[0-9a-f]{16}$/);
      assert.ok(!banned.text.includes(guessed), 'the credential itself is never listed');
      const lifted = await server.request('POST', '/v1/admin/security/unban-key', { token: admin.accessToken, body: { ip: '203.0.113.20', key_id: banned.body[0].key_id } });
      assert.deepEqual(lifted.body, { unbanned: 1 });
      assertError(await server.request('GET', '/v1/auth/me', { token: guessed, headers: from('203.0.113.20') }), 401, 'invalid_api_key');
      // A valid credential never counts as a failure, and passes a ban on its IP; a guess from there is refused.
      await settle(server, admin.accessToken, { ip: { max_failures: 2 } });
      for (let i = 0; i < 5; i += 1) assert.equal((await server.request('GET', '/v1/auth/me', { token: admin.accessToken, headers: from('203.0.113.30') })).status, 200);
      for (let i = 0; i < 2; i += 1) await server.request('GET', '/v1/auth/me', { token: `${guessed}${i}`, headers: from('203.0.113.30') });
      assertBanned(await server.request('GET', '/v1/auth/me', { token: `${guessed}x`, headers: from('203.0.113.30') }), 'ip_banned', 3600);
      assert.equal((await server.request('GET', '/v1/auth/me', { token: admin.accessToken, headers: from('203.0.113.30') })).status, 200);
    });
  });

  it('R11: unban one IP, then all IPs and all keys', async () => {
    await withTestServer(proxied, async (server) => {
      const admin = await setupAdmin(server);
      await settle(server, admin.accessToken, { ip: { max_failures: 2 }, key: { max_failures: 1 } });
      for (const ip of ['203.0.113.40', '203.0.113.41', '203.0.113.42']) for (let i = 0; i < 2; i += 1) await badLogin(server, 'x', ip);
      await server.request('GET', '/v1/auth/me', { token: 'sk-bad-one', headers: from('203.0.113.50') });
      await server.request('GET', '/v1/auth/me', { token: 'sk-bad-two', headers: from('203.0.113.51') });
      assert.deepEqual((await server.request('POST', '/v1/admin/security/unban-ip', { token: admin.accessToken, body: { ip: '203.0.113.40' } })).body, { unbanned: 1 });
      assert.deepEqual((await server.request('POST', '/v1/admin/security/unban-ip', { token: admin.accessToken, body: { ip: '203.0.113.40' } })).body, { unbanned: 0 });
      assertError(await badLogin(server, 'x', '203.0.113.40'), 401, 'invalid_credentials');
      assertBanned(await badLogin(server, 'x', '203.0.113.41'), 'ip_banned', 3600);
      assert.deepEqual((await server.request('POST', '/v1/admin/security/unban-all-ips', { token: admin.accessToken })).body, { unbanned: 2 });
      assertError(await badLogin(server, 'x', '203.0.113.41'), 401, 'invalid_credentials');
      assert.equal((await server.request('GET', '/v1/admin/security/banned-keys', { token: admin.accessToken })).body.length, 2);
      assert.deepEqual((await server.request('POST', '/v1/admin/security/unban-all-keys', { token: admin.accessToken })).body, { unbanned: 2 });
      assert.deepEqual((await server.request('GET', '/v1/admin/security/banned-keys', { token: admin.accessToken })).body, []);
    });
  });

  it('X-Forwarded-For is ignored unless the peer is a trusted proxy', async () => {
    await withTestServer({ securitySettings: 'production' }, async (server) => {
      const admin = await setupAdmin(server);
      await settle(server, admin.accessToken, { ip: { max_failures: 2 } });
      await badLogin(server, 'x', '203.0.113.90');
      await badLogin(server, 'x', '203.0.113.91');
      // Both failures counted against the real peer, 127.0.0.1, whatever the header claimed.
      assertBanned(await badLogin(server, 'x', '203.0.113.92'), 'ip_banned', 3600);
      const banned = await server.request('GET', '/v1/admin/security/banned-ips', { token: admin.accessToken });
      assert.deepEqual(banned.body.map((ban: { ip: string }) => ban.ip), ['127.0.0.1']);
    });
  });
});

describe('security: settings (R9)', () => {
  it('has the documented defaults; a partial update merges; a bad value is a 400 that changes nothing', async () => {
    await withTestServer({ securitySettings: 'production' }, async (server) => {
      const admin = await setupAdmin(server);
      const defaults = await server.request('GET', '/v1/admin/security/rate-limit', { token: admin.accessToken });
      assert.deepEqual(defaults.body, {
        ip: { max_failures: 10, window_seconds: 300, ban_seconds: 3600 },
        key: { max_failures: 5, window_seconds: 300, ban_seconds: 3600 },
        login: { failures_before_lockout: 30, wait_increment_seconds: 60, max_wait_seconds: 900, failure_reset_seconds: 43200 },
        default_key_limits: null,
      });
      const updated = await server.request('PUT', '/v1/admin/security/rate-limit', { token: admin.accessToken, body: { ip: { max_failures: 20 } } });
      assert.equal(updated.body.ip.max_failures, 20);
      assert.equal(updated.body.ip.ban_seconds, 3600);
      for (const bad of [
        { ip: { max_failures: 0 } },
        { ip: { max_failures: 'ten' } },
        { key: { ban_seconds: -1 } },
        { login: { wait_increment_seconds: 600, max_wait_seconds: 60 } },
        { login: { failures_before_lockout: 5 }, ip: { unknown: 1 } },
        {},
      ]) {
        const refused = await server.request('PUT', '/v1/admin/security/rate-limit', { token: admin.accessToken, body: bad });
        assertError(refused, 400, 'invalid_request', JSON.stringify(bad));
      }
      const after = await server.request('GET', '/v1/admin/security/rate-limit', { token: admin.accessToken });
      assert.deepEqual(after.body, updated.body, 'nothing changed');
    });
  });

  it('R9: settings, counters and bans survive a restart', async () => {
    const first = await startTestServer({ ...proxied });
    const home = first.home;
    let admin;
    try {
      admin = await setupAdmin(first);
      await settle(first, admin.accessToken, { ip: { max_failures: 2, ban_seconds: 600 }, login: { failures_before_lockout: 7 } });
      await badLogin(first, 'x', '203.0.113.60');
      await badLogin(first, 'x', '203.0.113.60');
      await first.app.close();
      const second = await startTestServer({ ...proxied, home });
      try {
        const token = (await second.request('POST', '/v1/auth/login', { body: adminCredentials })).body.access_token as string;
        const settings = await second.request('GET', '/v1/admin/security/rate-limit', { token });
        assert.equal(settings.body.ip.max_failures, 2);
        assert.equal(settings.body.login.failures_before_lockout, 7);
        assertBanned(await badLogin(second, 'x', '203.0.113.60'), 'ip_banned', 600);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});
