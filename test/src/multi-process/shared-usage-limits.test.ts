/**
 * Usage limits shared by two `svc-local` processes on one database (issue 17, docs/limits.md "Several
 * processes and hosts"): a key's requests per minute, taken through both processes at once, admit
 * no more than the limit plus the documented tolerance (plus what the limit refilled while the burst
 * ran: these are real processes on the real clock), and a token budget spent through both is never
 * exceeded. The `test-postgres` project runs this file again on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { contractClient, createKey, createUser, setupAdmin, startServerProcess, type ContractClient, type LoggedInUser, type ServerProcess } from '@svc/server/testing';

describe('usage limits shared by two processes', () => {
  let home: string;
  const processes: ServerProcess[] = [];
  let a: ContractClient;
  let b: ContractClient;
  let user: LoggedInUser;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-shared-limits-'));
    processes.push(await startServerProcess({ SVC_HOME: home }));
    processes.push(await startServerProcess({ SVC_HOME: home }));
    a = contractClient(processes[0]!.baseUrl);
    b = contractClient(processes[1]!.baseUrl);
    const admin = await setupAdmin(a);
    const launched = await a.request('POST', '/v1/models', { token: admin.accessToken, body: { model_uid: 'chat', model_name: 'echo' } });
    assert.equal(launched.status, 200, launched.text);
    user = await createUser(a, admin.accessToken, ['models:read', 'keys:create']);
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  const chat = (client: ContractClient, key: string) =>
    client.request('POST', '/v1/chat/completions', { token: key, body: { model: 'chat', max_tokens: 10, messages: [{ role: 'user', content: 'shared limit' }] } });

  it('two processes together admit at most the limit plus the tolerance of one lease lifetime', async () => {
    const limit = 30;
    const key = (await createKey(a, user.accessToken, { name: 'shared', limits: { requests_per_minute: limit } } as never)).key;
    const startedAt = Date.now();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, index) => chat(index % 2 === 0 ? a : b, key)));
    const elapsedMs = Date.now() - startedAt;
    const admitted = (client: 'a' | 'b') => answers.filter((answer, index) => (index % 2 === 0 ? 'a' : 'b') === client && answer.status === 200).length;
    for (const answer of answers) {
      if (answer.status !== 200) {
        assert.equal(answer.status, 429, answer.text);
        assert.equal(answer.body.error.code, 'rate_limit_exceeded');
      }
    }
    const total = admitted('a') + admitted('b');
    // docs/limits.md: at most ⌈L/60⌉ more than one exact limiter in any window; one exact limiter
    // admits the burst L plus one request per emission interval (60 s / L) that passed meanwhile.
    const refilled = Math.ceil(elapsedMs / (60_000 / limit));
    const tolerance = Math.ceil(limit / 60);
    assert.ok(total <= limit + refilled + tolerance, `${total} admitted; bound ${limit} + ${refilled} refilled + ${tolerance}`);
    assert.ok(admitted('a') > 0 && admitted('b') > 0, `each process admitted some: ${admitted('a')} and ${admitted('b')}`);
    assert.ok(total < 40, 'the limit refused some');
  });

  it('a token budget spent through both processes is never exceeded, and both meters report every call', async () => {
    const budget = 300;
    const created = await createKey(a, user.accessToken, { name: 'budget', limits: { token_budget: { tokens: budget, period: 'day' } } } as never);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, index) => chat(index % 2 === 0 ? a : b, created.key)));
    const refused = answers.filter((answer) => answer.status === 429);
    assert.ok(refused.length > 0, 'the budget ran out');
    for (const answer of refused) assert.equal(answer.body.error.code, 'budget_exceeded');
    const used = answers.filter((answer) => answer.status === 200).reduce((sum, answer) => sum + (answer.body.usage.total_tokens as number), 0);
    assert.ok(used <= budget, `${used} tokens used of a budget of ${budget}`);

    // Each report writes its own process's pending calls first: ask A, then B (which then reads both).
    const path = `/v1/usage?group_by=key&interval=hour&key_id=${created.id}&start=now-1h`;
    assert.equal((await a.request('GET', path, { token: user.accessToken })).status, 200);
    const report = await b.request('GET', path, { token: user.accessToken });
    assert.equal(report.status, 200, report.text);
    const calls = report.body.data.reduce((sum: number, row: { calls: number }) => sum + row.calls, 0);
    const tokens = report.body.data.reduce((sum: number, row: { total_tokens: number }) => sum + row.total_tokens, 0);
    assert.equal(calls, 40, 'every call metered, refused ones included');
    assert.equal(tokens, used);
  });
});
