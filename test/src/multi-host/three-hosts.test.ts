/**
 * Three `svc-local` processes on one PostgreSQL database, as three hosts of one deployment: what one
 * host changes applies to every other host's **next** request (no waiting, no polling), concurrent
 * first-run setups make one admin, refresh-token reuse detection holds when hosts race, and the
 * audit chain all three append to verifies.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { adminCredentials, assertError, createKey, createUser, login, pollUntil, type ContractClient, type LoggedInUser } from '@svc/server/testing';
import { startDeployment, type Deployment } from './deployment.js';

const from = (ip: string) => ({ 'x-forwarded-for': ip });

describe('three hosts on one PostgreSQL database', () => {
  let deployment: Deployment;
  let a: ContractClient;
  let b: ContractClient;
  let c: ContractClient;
  let admin: LoggedInUser;

  beforeAll(async () => {
    deployment = await startDeployment(3);
    [a, b, c] = deployment.hosts.map((host) => host.client) as [ContractClient, ContractClient, ContractClient];
  });

  afterAll(async () => {
    await deployment?.destroy();
  });

  it('ten concurrent first-run setups spread over the three hosts create exactly one admin', async () => {
    const clients = [a, b, c];
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (clients[i % 3] as ContractClient).request('POST', '/v1/admin/setup', { body: { ...adminCredentials, username: i === 0 ? adminCredentials.username : `admin${i}` } })),
    );
    const created = answers.filter((answer) => answer.status === 201);
    assert.equal(created.length, 1, answers.map((answer) => `${answer.status} ${answer.text}`).join('\n'));
    for (const answer of answers) if (answer.status !== 201) assertError(answer, 403, 'setup_already_completed');
    const users = await deployment.query<{ count: string }>('SELECT count(*) AS count FROM users');
    assert.equal(Number(users[0]?.count), 1);
    for (const client of clients) assert.equal((await client.request('GET', '/v1/admin/setup/status')).body.needs_setup, false);
    const winner = created[0]!.body as { id: string; username: string };
    const password = adminCredentials.password;
    const tokens = await login(b, winner.username, password);
    admin = { id: winner.id, username: winner.username, password, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
  });

  it('a permission granted through A is used on B at once; narrowed through A, refused on C at once', async () => {
    const bob = await createUser(a, admin.accessToken, []);
    assertError(await b.request('GET', '/v1/models', { token: bob.accessToken }), 403, 'permission_denied');
    assert.equal((await a.request('PUT', `/v1/admin/users/${bob.id}/permissions`, { token: admin.accessToken, body: { permissions: ['models:list'] } })).status, 200);
    assert.equal((await b.request('GET', '/v1/models', { token: bob.accessToken })).status, 200);
    assert.equal((await c.request('GET', '/v1/models', { token: bob.accessToken })).status, 200);
    assert.equal((await a.request('PUT', `/v1/admin/users/${bob.id}/permissions`, { token: admin.accessToken, body: { permissions: [] } })).status, 200);
    assertError(await c.request('GET', '/v1/models', { token: bob.accessToken }), 403, 'permission_denied');
    assertError(await b.request('GET', '/v1/models', { token: bob.accessToken }), 403, 'permission_denied');
  });

  it("a key's owner narrowed, the key disabled, the key deleted through one host: refused by the others' next request", async () => {
    const carol = await createUser(a, admin.accessToken, ['models:list', 'keys:create']);
    const key = await createKey(b, carol.accessToken, { name: 'multi-host' });
    // Warm every host's caches with the key.
    for (const client of [a, b, c]) assert.equal((await client.request('GET', '/v1/models', { token: key.key })).status, 200);
    assert.equal((await a.request('PUT', `/v1/admin/users/${carol.id}/permissions`, { token: admin.accessToken, body: { permissions: ['keys:create'] } })).status, 200);
    assertError(await b.request('GET', '/v1/models', { token: key.key }), 403, 'permission_denied');
    assert.equal((await c.request('PUT', `/v1/admin/users/${carol.id}/permissions`, { token: admin.accessToken, body: { permissions: ['models:list', 'keys:create'] } })).status, 200);
    assert.equal((await a.request('GET', '/v1/models', { token: key.key })).status, 200);

    assert.equal((await a.request('PUT', `/v1/admin/keys/${key.id}`, { token: admin.accessToken, body: { enabled: false } })).status, 200);
    assert.equal((await b.request('GET', '/v1/models', { token: key.key })).status, 401);
    assert.equal((await c.request('GET', '/v1/models', { token: key.key })).status, 401);
    assert.equal((await b.request('PUT', `/v1/admin/keys/${key.id}`, { token: admin.accessToken, body: { enabled: true } })).status, 200);
    assert.equal((await c.request('GET', '/v1/models', { token: key.key })).status, 200);

    assert.equal((await c.request('DELETE', `/v1/admin/keys/${key.id}`, { token: admin.accessToken })).status < 300, true);
    assert.equal((await a.request('GET', '/v1/models', { token: key.key })).status, 401);
    assert.equal((await b.request('GET', '/v1/models', { token: key.key })).status, 401);
  });

  it("a user disabled through A: their token and key are refused by B's and C's next request", async () => {
    const dave = await createUser(a, admin.accessToken, ['models:list', 'keys:create']);
    const key = await createKey(c, dave.accessToken, { name: 'dave' });
    for (const client of [b, c]) {
      assert.equal((await client.request('GET', '/v1/models', { token: dave.accessToken })).status, 200);
      assert.equal((await client.request('GET', '/v1/models', { token: key.key })).status, 200);
    }
    assert.equal((await a.request('PUT', `/v1/admin/users/${dave.id}`, { token: admin.accessToken, body: { enabled: false } })).status, 200);
    for (const client of [b, c]) {
      assert.equal((await client.request('GET', '/v1/models', { token: dave.accessToken })).status, 401);
      assert.equal((await client.request('GET', '/v1/models', { token: key.key })).status, 401);
    }
  });

  it('a settings change through A applies on B and C; a ban earned through A is enforced by B and C', async () => {
    const put = await a.request('PUT', '/v1/admin/security/rate-limit', { token: admin.accessToken, body: { ip: { max_failures: 3, ban_seconds: 600 } } });
    assert.equal(put.status, 200, put.text);
    for (const client of [b, c]) assert.equal((await client.request('GET', '/v1/admin/security/rate-limit', { token: admin.accessToken })).body.ip.max_failures, 3);

    const attacker = from('203.0.113.66');
    const erin = await createUser(a, admin.accessToken, ['models:list', 'keys:create']);
    const good = await createKey(a, erin.accessToken, { name: 'erin' });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const bad = `sk-svc-${'x'.repeat(43)}${attempt}abcde`;
      const answer = await a.request('GET', '/v1/models', { token: bad, headers: attacker });
      assert.equal(answer.status, 401, answer.text);
    }
    // The ban stops guessing from that address on every host: another bad key, a login.
    const guess = `sk-svc-${'y'.repeat(43)}abcdef`;
    for (const client of [b, c]) {
      assertError(await client.request('GET', '/v1/models', { token: guess, headers: attacker }), 429, 'ip_banned');
      assertError(await client.request('POST', '/v1/auth/login', { body: { username: erin.username, password: erin.password }, headers: attacker }), 429, 'ip_banned');
    }
    // Another address is not touched by the ban.
    assert.equal((await b.request('POST', '/v1/auth/login', { body: { username: erin.username, password: erin.password }, headers: from('203.0.113.67') })).status, 200);
    assert.equal((await b.request('GET', '/v1/models', { token: good.key, headers: from('203.0.113.67') })).status, 200);
    assert.deepEqual((await c.request('POST', '/v1/admin/security/unban-ip', { token: admin.accessToken, body: { ip: '203.0.113.66' } })).body, { unbanned: 1 });
    assert.equal((await a.request('POST', '/v1/auth/login', { body: { username: erin.username, password: erin.password }, headers: attacker })).status, 200);
  });

  it('failed credentials from one address spread over the three hosts add up to one ban', async () => {
    const put = await b.request('PUT', '/v1/admin/security/rate-limit', { token: admin.accessToken, body: { ip: { max_failures: 3, ban_seconds: 600 } } });
    assert.equal(put.status, 200, put.text);
    const attacker = from('203.0.113.80');
    for (const [attempt, client] of [a, b, c].entries()) {
      assert.equal((await client.request('GET', '/v1/models', { token: `sk-svc-${'z'.repeat(43)}${attempt}abcde`, headers: attacker })).status, 401);
    }
    for (const client of [a, b, c]) assertError(await client.request('GET', '/v1/models', { token: `sk-svc-${'w'.repeat(43)}abcdef`, headers: attacker }), 429, 'ip_banned');
    assert.deepEqual((await a.request('POST', '/v1/admin/security/unban-ip', { token: admin.accessToken, body: { ip: '203.0.113.80' } })).body, { unbanned: 1 });
  });

  it('two hosts disabling the last two admins at once: exactly one succeeds, an admin remains', async () => {
    const second = await createUser(c, admin.accessToken, ['admin']);
    const [first, other] = await Promise.all([
      a.request('PUT', `/v1/admin/users/${second.id}`, { token: admin.accessToken, body: { enabled: false } }),
      b.request('PUT', `/v1/admin/users/${admin.id}`, { token: second.accessToken, body: { enabled: false } }),
    ]);
    const [winner, loser] = first.status === 200 ? [first, other] : [other, first];
    assert.equal(winner.status, 200, `${first.text} / ${other.text}`);
    // The loser is refused: 409 last_admin when both were authorised before either change, or 401
    // invalid_token when its caller was authenticated after the winner had disabled that caller.
    if (loser.status === 401) assertError(loser, 401, 'invalid_token');
    else assertError(loser, 409, 'last_admin');
    const enabledAdmins = await deployment.query<{ count: string }>(
      "SELECT count(*) AS count FROM users u JOIN user_permissions p ON p.user_id = u.id WHERE p.permission = 'admin' AND u.enabled",
    );
    assert.equal(Number(enabledAdmins[0]?.count), 1);
    if (first.status !== 200) {
      // The original admin was disabled: carry on as the second one, and restore the first.
      assert.equal((await c.request('PUT', `/v1/admin/users/${admin.id}`, { token: second.accessToken, body: { enabled: true } })).status, 200);
      const tokens = await login(a, admin.username, admin.password);
      admin = { ...admin, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
    }
  });

  it('a refresh token presented on every host at once: one rotation, one grace exchange, then reuse ends the session everywhere', async () => {
    const frank = await createUser(a, admin.accessToken, []);
    const clients = [a, b, c, a];
    const answers = await Promise.all(clients.map((client) => client.request('POST', '/v1/auth/refresh', { body: { refresh_token: frank.refreshToken } })));
    const winners = answers.filter((answer) => answer.status === 200);
    assert.equal(winners.length, 2, answers.map((answer) => `${answer.status} ${answer.text}`).join('\n'));
    for (const answer of answers) if (answer.status !== 200) assertError(answer, 401, 'invalid_refresh_token');
    // Reuse was detected: the family is gone, so neither new refresh token works on any host.
    for (const [index, winner] of winners.entries()) {
      assertError(await clients[index + 1]!.request('POST', '/v1/auth/refresh', { body: { refresh_token: winner.body.refresh_token } }), 401, 'invalid_refresh_token');
    }
  });

  it('the audit chain all three hosts appended to verifies', async () => {
    await Promise.all([a, b, c].map((client) => client.request('GET', '/v1/auth/me', { token: admin.accessToken })));
    const seen = await pollUntil(
      async () => (await c.request('GET', '/v1/audit/search?time_from=now-1h&action=getMe&size=1', { token: admin.accessToken })).body.total as number,
      (total) => total >= 3,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    assert.ok((seen.at(-1) ?? 0) >= 3);
    for (const client of [a, b, c]) {
      const verified = await client.request('GET', '/v1/audit/verify', { token: admin.accessToken });
      assert.equal(verified.status, 200, verified.text);
      assert.equal(verified.body.ok, true, verified.text);
    }
    const startups = await a.request('GET', '/v1/audit/search?time_from=now-1h&event_type=startup', { token: admin.accessToken });
    assert.equal(startups.body.total, 3, 'each host recorded its start-up in the one trail');
  });
});
