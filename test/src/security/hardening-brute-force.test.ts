/**
 * Issue 14, brute force and the lockout dead end: H2 (racing the limits with a burst of concurrent
 * logins on separate connections), H3 (guessing the current password), H7 (revoked credentials are
 * not guesses), H9 (forwarded addresses canonicalised), H12 (unknown usernames never stored as
 * text), and the ban that stops guessing but lets live credentials through.
 *
 * The servers trust 127.0.0.1 as a proxy, so attackers are simulated with `X-Forwarded-For`.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'vitest';
import { assertError, createKey, createUser, pollUntil, setupAdmin, withTestServer, type TestServer } from '@svc/server/testing';
import { generateApiKey } from '@svc/server/internals';
import { withDatabase } from './support.js';

const proxied = (settings: Record<string, Record<string, number>>) => ({ env: { SVC_TRUSTED_PROXIES: '127.0.0.1' }, securitySettings: settings });
const from = (ip: string) => ({ 'x-forwarded-for': ip });

/** Opens one TCP connection to the server. */
function open(server: TestServer): Promise<Socket> {
  const { port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends a login on an open connection and resolves to the status code. */
function sendLogin(socket: Socket, username: string, password: string, ip: string): Promise<number> {
  const body = JSON.stringify({ username, password });
  return new Promise((resolve, reject) => {
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.once('error', reject);
    socket.once('close', () => resolve(Number(answer.split(' ')[1])));
    socket.write(
      `POST /v1/auth/login HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Forwarded-For: ${ip}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/** A brute-force counter row, read from the database. */
async function counter(server: TestServer, scope: string, subject: string): Promise<{ failures: number; lockouts: number; banned_until: number | null } | undefined> {
  const rows = await withDatabase(server.home, (db) =>
    db.all<{ failures: number; lockouts: number; banned_until: number | null }>('SELECT failures, lockouts, banned_until FROM brute_force_entries WHERE scope = ? AND subject = ?', [scope, subject]),
  );
  return rows[0];
}

describe('hardening: brute-force limits under concurrency', () => {
  it('H2: a burst of 300 concurrent logins from one address on separate connections evaluates no more than the limit, and the right password inside the burst does not log in once the limit is reached', async () => {
    await withTestServer(proxied({ ip: { max_failures: 5 }, login: { failures_before_lockout: 1_000_000 } }), async (server) => {
      const admin = await setupAdmin(server);
      const victim = await createUser(server, admin.accessToken, []);
      const attacker = '203.0.113.66';
      const sockets = await Promise.all(Array.from({ length: 300 }, () => open(server)));
      let rightPassword: Promise<number> | undefined;
      const rightSocket = await open(server);
      const statuses = await Promise.all(
        sockets.map((socket) =>
          sendLogin(socket, victim.username, 'a wrong guess of the passphrase', attacker).then((status) => {
            // The limit is reached once a refusal comes back: the right password is sent then, mid-burst.
            if (status === 429 && rightPassword === undefined) rightPassword = sendLogin(rightSocket, victim.username, victim.password, attacker);
            return status;
          }),
        ),
      );
      const evaluated = statuses.filter((status) => status === 401).length;
      assert.equal(statuses.filter((status) => status !== 401 && status !== 429).length, 0, `statuses: ${[...new Set(statuses)].join(', ')}`);
      assert.ok(evaluated <= 5, `${evaluated} attempts were evaluated; the limit is 5`);
      assert.ok(rightPassword !== undefined, 'the burst reached the limit');
      assert.equal(await rightPassword, 429, 'the right password inside the burst is refused');
      const stored = await counter(server, 'ip', attacker);
      assert.ok(stored?.banned_until != null && stored.banned_until > Date.now(), 'the address is banned');
      assertError(await server.request('POST', '/v1/auth/login', { body: { username: victim.username, password: victim.password }, headers: from(attacker) }), 429, 'ip_banned');
    });
  }, 120_000);

  it('H2: 300 concurrent logins against one account from 300 addresses count no more failures than its lockout allows, then it is locked', async () => {
    await withTestServer(proxied({ ip: { max_failures: 1_000_000 }, login: { failures_before_lockout: 3 } }), async (server) => {
      const admin = await setupAdmin(server);
      const victim = await createUser(server, admin.accessToken, []);
      const sockets = await Promise.all(Array.from({ length: 300 }, () => open(server)));
      const statuses = await Promise.all(sockets.map((socket, index) => sendLogin(socket, victim.username, 'a wrong guess of the passphrase', `198.51.100.${index % 250}`)));
      assert.deepEqual([...new Set(statuses)], [401]);
      const stored = await counter(server, 'account', victim.id);
      assert.equal(stored?.failures, 3, 'exactly the lockout threshold was evaluated');
      assert.equal(stored?.lockouts, 1);
      const right = await server.request('POST', '/v1/auth/login', { body: { username: victim.username, password: victim.password }, headers: from('192.0.2.1') });
      assertError(right, 401, 'invalid_credentials');
    });
  }, 120_000);
});

describe('hardening: guesses that were not counted', () => {
  it('H3: a wrong current password counts like a failed login, against the account and the address; a key cannot change its owner\'s password', async () => {
    await withTestServer(proxied({ ip: { max_failures: 1_000_000 }, login: { failures_before_lockout: 2 } }), async (server) => {
      const admin = await setupAdmin(server);
      const user = await createUser(server, admin.accessToken, ['keys:create']);
      const key = await createKey(server, user.accessToken, { name: 'no permissions', permissions: [] });
      const byKey = await server.request('PUT', '/v1/auth/me/password', { token: key.key, body: { current_password: user.password, new_password: 'an entirely new passphrase' } });
      assertError(byKey, 403, 'permission_denied');
      for (let i = 0; i < 2; i += 1) {
        const wrong = await server.request('PUT', '/v1/auth/me/password', {
          token: user.accessToken,
          headers: from('203.0.113.30'),
          body: { current_password: `guess number ${i} of many`, new_password: 'an entirely new passphrase' },
        });
        assertError(wrong, 403, 'current_password_incorrect');
      }
      assert.equal((await counter(server, 'account', user.id))?.lockouts, 1, 'the account is locked');
      assert.equal((await counter(server, 'ip', '203.0.113.30'))?.failures, 2, 'the address counted both');
      const locked = await server.request('PUT', '/v1/auth/me/password', { token: user.accessToken, body: { current_password: user.password, new_password: 'an entirely new passphrase' } });
      assertError(locked, 403, 'current_password_incorrect');
      assertError(await server.request('POST', '/v1/auth/login', { body: { username: user.username, password: user.password } }), 401, 'invalid_credentials');
    });
  });

  it('H7: a revoked credential the server issued (old token version, deleted key, key of a deleted user) is not counted as a guess', async () => {
    await withTestServer(proxied({ ip: { max_failures: 3 }, key: { max_failures: 3 } }), async (server) => {
      const admin = await setupAdmin(server);
      const user = await createUser(server, admin.accessToken, ['models:list', 'keys:create']);
      const deletedKey = await createKey(server, user.accessToken, { name: 'deleted' });
      assert.equal((await server.request('DELETE', `/v1/admin/keys/${deletedKey.id}`, { token: user.accessToken })).status, 204);
      const other = await createUser(server, admin.accessToken, ['models:list', 'keys:create']);
      const orphanKey = await createKey(server, other.accessToken, { name: 'orphan' });
      const oldToken = user.accessToken;
      const changed = await server.request('PUT', '/v1/auth/me/password', { token: user.accessToken, body: { current_password: user.password, new_password: 'a brand new passphrase here' } });
      assert.equal(changed.status, 200, changed.text);
      assert.equal((await server.request('DELETE', `/v1/admin/users/${other.id}`, { token: admin.accessToken })).status, 204);
      const client = from('203.0.113.40');
      for (let i = 0; i < 5; i += 1) {
        assertError(await server.request('GET', '/v1/models', { token: deletedKey.key, headers: client }), 401, 'invalid_api_key');
        assertError(await server.request('GET', '/v1/models', { token: orphanKey.key, headers: client }), 401, 'invalid_api_key');
        assertError(await server.request('GET', '/v1/models', { token: oldToken, headers: client }), 401, 'invalid_token');
      }
      assert.equal(await counter(server, 'ip', '203.0.113.40'), undefined, 'nothing was counted');
      // A made-up key is a guess and still counts.
      for (let i = 0; i < 3; i += 1) await server.request('GET', '/v1/models', { token: generateApiKey(), headers: client });
      assertError(await server.request('GET', '/v1/models', { token: generateApiKey(), headers: client }), 429, 'ip_banned');
    });
  });
});

describe('hardening: client addresses and what the audit keeps', () => {
  it('H9: forwarded addresses are parsed, validated and canonicalised; text that is no address is ignored', async () => {
    await withTestServer(proxied({ ip: { max_failures: 3 } }), async (server) => {
      const admin = await setupAdmin(server);
      for (const spelling of ['::ffff:10.9.9.9', '010.009.009.009', '10.9.9.9:1234']) {
        assertError(await server.request('POST', '/v1/auth/login', { body: { username: 'nobody-here', password: 'not it at all' }, headers: from(spelling) }), 401, 'invalid_credentials');
      }
      assertError(await server.request('POST', '/v1/auth/login', { body: { username: 'nobody-here', password: 'not it at all' }, headers: from('10.9.9.9') }), 429, 'ip_banned');
      await server.request('POST', '/v1/auth/login', { body: { username: 'nobody-here', password: 'not it at all' }, headers: from('<script>alert(1)</script>') });
      const banned = await server.request('GET', '/v1/admin/security/banned-ips', { token: admin.accessToken });
      assert.deepEqual(banned.body.map((ban: { ip: string }) => ban.ip), ['10.9.9.9']);
      const stored = await pollUntil(
        () => withDatabase(server.home, (db) => db.column<string>("SELECT DISTINCT client_ip FROM audit_log WHERE route = '/v1/auth/login'")),
        (ips) => ips.length >= 2,
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      assert.deepEqual([...(stored.at(-1) ?? [])].sort(), ['10.9.9.9', '127.0.0.1']);
    });
  });

  it('H12: a failed login for an unknown username stores a keyed marker, never the typed text', async () => {
    await withTestServer({}, async (server) => {
      const admin = await setupAdmin(server);
      const typed = 'my-Secret-passphrase-typed-as-username';
      await server.request('POST', '/v1/auth/login', { body: { username: typed, password: 'whatever was typed' } });
      await server.request('POST', '/v1/auth/login', { body: { username: typed, password: 'whatever was typed' } });
      await server.request('POST', '/v1/auth/login', { body: { username: admin.username, password: 'a wrong password for admin' } });
      const rows = await pollUntil(
        () => withDatabase(server.home, (db) => db.all("SELECT * FROM audit_log WHERE route = '/v1/auth/login' AND status != 'success'")),
        (found) => found.length >= 3,
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      const failed = rows.at(-1) ?? [];
      assert.ok(!JSON.stringify(failed).includes(typed), 'the typed text is nowhere in the audit');
      const markers = failed.map((row) => row['username']).filter((name) => typeof name === 'string' && name.startsWith('unknown-user:'));
      assert.equal(markers.length, 2);
      assert.match(markers[0] as string, /^unknown-user:[0-9a-f]{16}$/);
      assert.equal(markers[0], markers[1], 'the same name gets the same marker');
      assert.ok(failed.some((row) => row['username'] === admin.username), 'an existing account is still named');
    });
  });
});

describe('hardening: the lockout dead end', () => {
  it('Lockout: a ban stops guessing from an address, but a valid live credential from it still passes', async () => {
    await withTestServer(proxied({ ip: { max_failures: 3 } }), async (server) => {
      const admin = await setupAdmin(server);
      const key = await createKey(server, admin.accessToken, { name: 'live' });
      const shared = from('192.0.2.77');
      for (let i = 0; i < 3; i += 1) await server.request('POST', '/v1/auth/login', { body: { username: admin.username, password: `typo number ${i}` }, headers: shared });
      assertError(await server.request('POST', '/v1/auth/login', { body: { username: admin.username, password: admin.password }, headers: shared }), 429, 'ip_banned');
      assertError(await server.request('GET', '/v1/models', { token: generateApiKey(), headers: shared }), 429, 'ip_banned');
      assertError(await server.request('GET', '/v1/models', { headers: shared }), 429, 'ip_banned');
      assert.equal((await server.request('GET', '/v1/auth/me', { token: admin.accessToken, headers: shared })).status, 200, 'a live session passes');
      assert.equal((await server.request('GET', '/v1/models', { token: key.key, headers: shared })).status, 200, 'a live key passes');
      const refreshed = await server.request('POST', '/v1/auth/refresh', { body: { refresh_token: admin.refreshToken }, headers: shared });
      assert.equal(refreshed.status, 200, 'a live session refreshes');
      assert.equal((await server.request('GET', '/status', { headers: shared })).status, 200);
      const lifted = await server.request('POST', '/v1/admin/security/unban-ip', { token: refreshed.body.access_token, headers: shared, body: { ip: '192.0.2.77' } });
      assert.equal(lifted.status, 200, lifted.text);
    });
  });
});
