/**
 * Faults in a three-host deployment on one PostgreSQL: the database stopped under load and started
 * again, the hosts' LISTEN connections killed, and one host killed with `kill -9` in the middle of
 * a burst of writes. No timing is asserted; waiting is bounded polling.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertError, createKey, pollUntil, setupAdmin, type ContractClient, type LoggedInUser, type TestResponse } from '@svc/server/testing';
import { startDeployment, startTestCluster, type Deployment } from './deployment.js';
import type { PostgresCluster } from '@svc/server/testing';

/** One PostgreSQL server for the whole file (a database per scenario); the first scenario stops and starts it. */
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

/** Every host's `/ready` until all answer `expected` (bounded); answers the last statuses. */
async function waitForReadiness(deployment: Deployment, expected: number): Promise<number[]> {
  const seen = await pollUntil(
    () => Promise.all(deployment.hosts.map(async (host) => (await host.client.request('GET', '/ready')).status)),
    (statuses) => statuses.every((status) => status === expected),
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  return seen.at(-1) ?? [];
}

/** `error` in words, with its cause: fetch says only "fetch failed", the cause says why (reset, refused, closed). */
function failureText(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause === undefined ? String(error) : `${String(error)} (cause: ${String(cause)}, code ${String((cause as { code?: unknown }).code)})`;
}

/** Creates `count` keys spread over `clients` at once; answers every response (status 0: no answer). */
function keyBurst(clients: readonly ContractClient[], token: string, count: number, stem: string): Promise<TestResponse[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      (clients[i % clients.length] as ContractClient).request('POST', '/v1/admin/keys', { token, body: { name: `${stem}-${i}` } }).catch((error: unknown) => ({ status: 0, text: failureText(error), body: null, headers: new Headers() }) as TestResponse),
    ),
  );
}

/** The end of every host's stderr, for a failure message. */
function hostLogs(deployment: Deployment): string {
  return deployment.hosts.map((host, index) => `--- host ${index} stderr:\n${host.process.stderr().slice(-2000)}`).join('\n');
}

describe('faults: PostgreSQL stopped under load, then started again', () => {
  let deployment: Deployment;
  let clients: ContractClient[];
  let admin: LoggedInUser;

  beforeAll(async () => {
    deployment = await startDeployment(3, { cluster });
    clients = deployment.hosts.map((host) => host.client);
    admin = await setupAdmin(clients[0] as ContractClient);
  });

  afterAll(async () => {
    await deployment?.destroy();
  });

  it('answers 503 (never 500, never a stale allow) while the database is down, and recovers without a restart keeping every acknowledged write', async () => {
    const [a, b, c] = clients as [ContractClient, ContractClient, ContractClient];
    const revoked = await createKey(a, admin.accessToken, { name: 'revoked before the stop' });
    const live = await createKey(a, admin.accessToken, { name: 'live' });
    // Every host has both keys and the admin's token cached.
    for (const client of clients) {
      assert.equal((await client.request('GET', '/v1/auth/me', { token: revoked.key })).status, 200);
      assert.equal((await client.request('GET', '/v1/auth/me', { token: live.key })).status, 200);
      assert.equal((await client.request('GET', '/v1/auth/me', { token: admin.accessToken })).status, 200);
    }
    assert.equal((await b.request('PUT', `/v1/admin/keys/${revoked.id}`, { token: admin.accessToken, body: { enabled: false } })).status, 200);

    // Under load: a burst of key creations over the three hosts while the database stops.
    const burst = keyBurst(clients, admin.accessToken, 30, 'during-stop');
    await deployment.cluster.halt();
    let during: TestResponse[];
    try {
      during = await burst;
      for (const answer of during) assert.ok(answer.status === 201 || answer.status === 503, `${answer.status} ${answer.text}\n${hostLogs(deployment)}`);
      for (const client of clients) {
        for (const credential of [revoked.key, live.key, admin.accessToken]) {
          const answer = await client.request('GET', '/v1/auth/me', { token: credential });
          assertError(answer, 503, 'service_unavailable');
          assert.equal(answer.headers.get('retry-after'), '1');
        }
        assertError(await client.request('GET', '/v1/admin/keys', { token: admin.accessToken }), 503, 'service_unavailable');
        assertError(await client.request('POST', '/v1/admin/keys', { token: admin.accessToken, body: { name: 'refused' } }), 503, 'service_unavailable');
        // Liveness stays up; readiness takes the host out of rotation.
        assert.equal((await client.request('GET', '/status')).status, 200);
        const readiness = await client.request('GET', '/ready');
        assertError(readiness, 503, 'service_unavailable');
        assert.equal(readiness.headers.get('retry-after'), '1');
      }
    } finally {
      await deployment.cluster.resume();
    }
    assert.deepEqual(await waitForReadiness(deployment, 200), [200, 200, 200]);
    for (const client of [c, b, a]) {
      assert.equal((await client.request('GET', '/v1/auth/me', { token: revoked.key })).status, 401, 'the revocation held through the outage');
      assert.equal((await client.request('GET', '/v1/auth/me', { token: live.key })).status, 200);
      assert.equal((await client.request('GET', '/v1/auth/me', { token: admin.accessToken })).status, 200);
    }
    const acknowledged = during.filter((answer) => answer.status === 201).map((answer) => answer.body.id as string);
    const stored = new Set((await deployment.query<{ id: string }>('SELECT id FROM api_keys')).map((row) => row.id));
    for (const id of acknowledged) assert.ok(stored.has(id), `acknowledged key ${id} is missing`);
    const listed = await a.request('GET', '/v1/admin/keys', { token: admin.accessToken });
    assert.equal(listed.status, 200);
  });
});

describe('faults: the LISTEN connections killed', () => {
  let deployment: Deployment;
  let admin: LoggedInUser;

  beforeAll(async () => {
    deployment = await startDeployment(3, { cluster });
    admin = await setupAdmin(deployment.hosts[0]!.client);
  });

  afterAll(async () => {
    await deployment?.destroy();
  });

  it("every host's caches still see a revocation on the next request (the epoch check decides)", async () => {
    const [a, b, c] = deployment.hosts.map((host) => host.client) as [ContractClient, ContractClient, ContractClient];
    const key = await createKey(a, admin.accessToken, { name: 'listener' });
    for (const client of [a, b, c]) assert.equal((await client.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
    const terminated = await deployment.query<{ terminated: boolean }>(
      "SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = 'svc-listener' AND datname = current_database()",
    );
    assert.equal(terminated.filter((row) => row.terminated).length, 3, 'one listener per host');
    assert.equal((await a.request('PUT', `/v1/admin/keys/${key.id}`, { token: admin.accessToken, body: { enabled: false } })).status, 200);
    for (const client of [b, c, a]) assert.equal((await client.request('GET', '/v1/auth/me', { token: key.key })).status, 401);
    // The listeners come back by themselves.
    const listening = await pollUntil(
      async () => Number((await deployment.query<{ count: string }>("SELECT count(*) AS count FROM pg_stat_activity WHERE application_name = 'svc-listener' AND datname = current_database()"))[0]?.count),
      (count) => count === 3,
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    assert.equal(listening.at(-1), 3);
    assert.equal((await b.request('PUT', `/v1/admin/keys/${key.id}`, { token: admin.accessToken, body: { enabled: true } })).status, 200);
    for (const client of [c, a]) assert.equal((await client.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
  });

  it('every host reports its listener back in /status and /metrics, with the reconnection counted', async () => {
    for (const host of deployment.hosts) {
      const states = await pollUntil(
        async () => (await host.client.request('GET', '/status')).body.change_listener as { listening: boolean; reconnects: number },
        (state) => state.listening && state.reconnects >= 1,
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      assert.equal(states.at(-1)?.reconnects, 1, 'one kill, one reconnection');
      const metrics = await host.client.request('GET', '/metrics', { token: admin.accessToken });
      assert.equal(metrics.status, 200);
      assert.match(metrics.text, /^svc_change_listener_up 1$/m);
      assert.match(metrics.text, /^svc_change_listener_reconnects_total 1$/m);
      assert.match(metrics.text, /^svc_change_listener_last_notification_age_seconds \d+(\.\d+)?$/m, 'the enable through B was heard');
    }
  });
});

describe('faults: kill -9 of one host during a burst of writes', () => {
  let deployment: Deployment;
  let admin: LoggedInUser;

  beforeAll(async () => {
    deployment = await startDeployment(3, { cluster });
    admin = await setupAdmin(deployment.hosts[0]!.client);
  });

  afterAll(async () => {
    await deployment?.destroy();
  });

  it('leaves the database consistent: every key has its owner, and every acknowledged key is there', async () => {
    const clients = deployment.hosts.map((host) => host.client);
    const victim = deployment.hosts[2]!;
    const burst = keyBurst(clients, admin.accessToken, 45, 'burst');
    // Kill the host once the burst is under way (some writes acknowledged, some in flight).
    await pollUntil(
      async () => Number((await deployment.query<{ count: string }>("SELECT count(*) AS count FROM api_keys WHERE name LIKE 'burst-%'"))[0]?.count),
      (count) => count >= 3,
      { timeoutMs: 60_000, intervalMs: 10 },
    );
    await victim.process.kill();
    const answers = await burst;
    const acknowledged = answers.filter((answer) => answer.status === 201).map((answer) => answer.body.id as string);
    for (const answer of answers) assert.ok(answer.status === 201 || answer.status === 0, `${answer.status} ${answer.text}`);

    const orphans = await deployment.query<{ id: string }>('SELECT k.id FROM api_keys k LEFT JOIN users u ON u.id = k.user_id WHERE u.id IS NULL');
    assert.deepEqual(orphans, []);
    const stored = await deployment.query<{ id: string }>("SELECT id FROM api_keys WHERE name LIKE 'burst-%'");
    const storedIds = new Set(stored.map((row) => row.id));
    for (const id of acknowledged) assert.ok(storedIds.has(id), `acknowledged key ${id} is missing`);
    // Unacknowledged ones are those the killed host committed before dying, or none.
    assert.ok(stored.length >= acknowledged.length && stored.length <= answers.length);

    // The survivors list exactly what the database holds, and the new keys work.
    const survivor = deployment.hosts[0]!.client;
    const listed = await survivor.request('GET', '/v1/admin/keys', { token: admin.accessToken });
    assert.equal(listed.status, 200);
    const listedIds = new Set((listed.body as { id: string; name: string }[]).filter((key) => key.name.startsWith('burst-')).map((key) => key.id));
    assert.deepEqual([...listedIds].sort(), [...storedIds].sort());
    const verified = await deployment.hosts[1]!.client.request('GET', '/v1/audit/verify', { token: admin.accessToken });
    assert.equal(verified.body.ok, true, verified.text);
  });
});
