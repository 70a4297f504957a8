/**
 * Requirement 7: concurrent first-run setups create exactly one administrator, whether the calls
 * land on one process or on several processes sharing one SVC_HOME.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { contractClient, login, startServerProcess, withTempHome, withTestServer, type ContractClient, type ServerProcess } from '@svc/server/testing';

const PASSWORD = 'a parallel setup passphrase';

/** Fires one setup per username at once, spreading the calls round-robin over `clients`. */
async function raceSetups(clients: readonly ContractClient[], usernames: readonly string[]) {
  return Promise.all(
    usernames.map(async (username, index) => {
      const client = clients[index % clients.length] as ContractClient;
      const response = await client.request('POST', '/v1/admin/setup', { body: { username, password: PASSWORD } });
      return { username, status: response.status, code: response.body?.error?.code as string | undefined };
    }),
  );
}

/** Asserts exactly one winner and 99 refusals, and that the winner is the only account. */
async function assertExactlyOneAdmin(results: Awaited<ReturnType<typeof raceSetups>>, clients: readonly ContractClient[]): Promise<void> {
  const winners = results.filter((r) => r.status === 201);
  const refused = results.filter((r) => r.status === 403 && r.code === 'setup_already_completed');
  const other = results.filter((r) => r.status !== 201 && !(r.status === 403 && r.code === 'setup_already_completed'));
  assert.deepEqual(other, [], 'every call answers 201 or 403 setup_already_completed');
  assert.equal(winners.length, 1, `exactly one setup succeeds; got ${winners.length}`);
  assert.equal(refused.length, results.length - 1);
  const winner = winners[0]!.username;
  for (const client of clients) {
    const tokens = await login(client, winner, PASSWORD);
    const users = await client.request('GET', '/v1/admin/users', { token: tokens.access_token });
    assert.equal(users.status, 200);
    assert.deepEqual(
      users.body.map((u: { username: string; permissions: string[] }) => [u.username, u.permissions]),
      [[winner, ['admin']]],
    );
    const status = await client.request('GET', '/v1/admin/setup/status');
    assert.equal(status.body.needs_setup, false);
  }
}

const usernames = Array.from({ length: 100 }, (_, i) => `admin-${String(i).padStart(3, '0')}`);

describe('parallel first-run setup', () => {
  it('100 concurrent setups on one in-process server create exactly one admin', async () => {
    await withTestServer(async (server) => {
      const results = await raceSetups([server], usernames);
      await assertExactlyOneAdmin(results, [server]);
    });
  });

  it('100 concurrent setups over two processes sharing one home create exactly one admin', async () => {
    await withTempHome('svc-parallel-setup-', async (home) => {
      const processes: ServerProcess[] = [];
      try {
        const started = await Promise.allSettled([startServerProcess({ SVC_HOME: home }), startServerProcess({ SVC_HOME: home })]);
        for (const outcome of started) if (outcome.status === 'fulfilled') processes.push(outcome.value);
        for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
        const clients = processes.map((p) => contractClient(p.baseUrl));
        const results = await raceSetups(clients, usernames);
        await assertExactlyOneAdmin(results, clients);
      } finally {
        await Promise.all(processes.map((p) => p.stop()));
      }
    });
  });
});
