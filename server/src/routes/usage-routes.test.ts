/**
 * `GET /v1/usage` on a real server: totals written to its database file by another connection (as
 * another process's meter would), read back grouped, as JSON and CSV; own usage for everyone,
 * everyone's only with `usage:read_all`.
 */
import assert from 'node:assert/strict';
import { beforeAll, describe, it } from 'vitest';
import { openStorage, storageConfigOf } from '../storage/open-storage.js';
import type { UsageTotal } from '../storage/port/usage.js';
import { assertError, createKey, createUser, useServerWithAdmin, type LoggedInUser } from '../testing/index.js';

const HOUR = 3_600_000;
const hourAgo = (hours: number) => Math.floor(Date.now() / HOUR) * HOUR - hours * HOUR;

describe('GET /v1/usage', () => {
  const ctx = useServerWithAdmin();
  let alice: LoggedInUser;
  let bob: LoggedInUser;
  let auditor: LoggedInUser;
  let aliceKey: { id: string; key: string };

  const total = (fields: Partial<UsageTotal>): UsageTotal => ({
    hourStart: hourAgo(1),
    keyId: null,
    userId: alice.id,
    model: 'llama-3',
    calls: 1,
    errors: 0,
    promptTokens: 100,
    completionTokens: 20,
    estimatedCalls: 0,
    latencyMsSum: 300,
    ...fields,
  });

  beforeAll(async () => {
    alice = await createUser(ctx.server, ctx.admin.accessToken, ['models:read', 'keys:create']);
    bob = await createUser(ctx.server, ctx.admin.accessToken, ['models:read']);
    auditor = await createUser(ctx.server, ctx.admin.accessToken, ['usage:read_all']);
    aliceKey = await createKey(ctx.server, alice.accessToken, { name: 'notebook' });
    // Written through a storage of its own (either backend), as another process's meter writes them.
    const storage = await openStorage(storageConfigOf(ctx.server.config));
    await storage.usage.add([
      total({ keyId: aliceKey.id, calls: 3, promptTokens: 300, completionTokens: 60, latencyMsSum: 900 }),
      total({}),
      total({ hourStart: hourAgo(2), model: 'echo', errors: 1 }),
      total({ userId: bob.id, calls: 2, promptTokens: 10, completionTokens: 10, latencyMsSum: 100 }),
      total({ hourStart: hourAgo(24 * 40), userId: bob.id }),
    ]);
    await storage.close();
  });

  it('shows a caller their own usage only, grouped by model per day by default', async () => {
    const response = await ctx.server.request('GET', '/v1/usage?start=now-2d', { token: alice.accessToken });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.scope, 'own');
    assert.equal(response.body.group_by, 'model');
    assert.equal(response.body.interval, 'day');
    const calls = response.body.data.reduce((sum: number, row: { calls: number }) => sum + row.calls, 0);
    assert.equal(calls, 5, 'three with the key, one session call, one echo call: none of bob');
    assert.deepEqual([...new Set(response.body.data.map((row: { group: string }) => row.group))].sort(), ['echo', 'llama-3']);
  });

  it('groups by key per hour, sessions under a null key, with total tokens and the mean latency', async () => {
    const response = await ctx.server.request('GET', '/v1/usage?start=now-3h&group_by=key&interval=hour', { token: alice.accessToken });
    assert.equal(response.status, 200, response.text);
    const lastHour = response.body.data.filter((row: { period_start: string }) => Date.parse(row.period_start) === hourAgo(1));
    assert.deepEqual(
      lastHour.map((row: Record<string, unknown>) => [row['group'], row['calls'], row['total_tokens'], row['mean_latency_ms']]),
      [
        [null, 1, 120, 300],
        [aliceKey.id, 3, 360, 300],
      ],
    );
  });

  it("refuses another user's usage without usage:read_all (403), and shows everyone's with it", async () => {
    assertError(await ctx.server.request('GET', `/v1/usage?user_id=${bob.id}`, { token: alice.accessToken }), 403, 'permission_denied');
    const all = await ctx.server.request('GET', '/v1/usage?start=now-2d&group_by=user', { token: auditor.accessToken });
    assert.equal(all.body.scope, 'all');
    assert.deepEqual([...new Set(all.body.data.map((row: { group: string }) => row.group))].sort(), [alice.id, bob.id].sort());
    const onlyBob = await ctx.server.request('GET', `/v1/usage?start=now-2d&user_id=${bob.id}`, { token: auditor.accessToken });
    assert.deepEqual(onlyBob.body.data.map((row: { calls: number }) => row.calls), [2]);
  });

  it('exports CSV with a header row and a download name', async () => {
    const response = await ctx.server.request('GET', '/v1/usage?start=now-2d&group_by=user&format=csv', { token: bob.accessToken });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(response.headers.get('content-disposition') ?? '', /^attachment; filename="svc-usage-.*\.csv"$/);
    const lines = response.text.trimEnd().split('\r\n');
    assert.equal(lines[0], 'period_start,group,calls,errors,prompt_tokens,completion_tokens,total_tokens,estimated_calls,mean_latency_ms');
    assert.equal(lines.length, 2);
    assert.match(lines[1] ?? '', new RegExp(`,${bob.id},2,0,10,10,20,0,50$`));
  });

  it('answers 400 naming the parameter for a bad or inverted time, or a range too long for its interval', async () => {
    const bad = await ctx.server.request('GET', '/v1/usage?start=yesterday', { token: alice.accessToken });
    assertError(bad, 400, 'invalid_request');
    assert.equal(bad.body.error.param, 'start');
    assertError(await ctx.server.request('GET', '/v1/usage?start=now&end=now-1h', { token: alice.accessToken }), 400, 'invalid_request');
    assertError(await ctx.server.request('GET', '/v1/usage?start=now-40d&interval=hour', { token: alice.accessToken }), 400, 'invalid_request');
    assertError(await ctx.server.request('GET', '/v1/usage?group_by=team', { token: alice.accessToken }), 400, 'invalid_request');
    assertError(await ctx.server.request('GET', '/v1/usage'), 401, 'missing_credentials');
  });

  it('lets an API key read its owner’s usage', async () => {
    const response = await ctx.server.request('GET', `/v1/usage?start=now-2d&key_id=${aliceKey.id}`, { token: aliceKey.key });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data.map((row: { calls: number }) => row.calls), [3]);
  });
});
