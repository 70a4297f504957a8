/**
 * Usage limits enforced on the model routes, on a real server with an injected clock (issue 17):
 * 429s with `Retry-After` and the `x-ratelimit-*` headers, per-key, per-model and per-user limits,
 * the admission of streams by their estimate, the concurrency cap under parallel streams, budgets
 * rolling over at the UTC day and month, and every call metered. The `server-postgres` project runs
 * this file again on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { adminCredentials, assertError, createKey, createUser, login, ManualClock, startFakeUpstream, useServerWithAdmin, type FakeUpstream, type LoggedInUser } from '../testing/index.js';

const START = Date.UTC(2026, 10, 24, 12, 0, 0);

/** The `data:` payloads of a server-sent-event body. */
const events = (text: string): string[] =>
  text
    .split('\n\n')
    .map((block) => block.trim())
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));

describe('usage limits on the model routes', () => {
  const clock = new ManualClock(START);
  const ctx = useServerWithAdmin({ clock, config: { upstreamTimeoutMs: 60_000 } });
  let upstream: FakeUpstream;
  let caller: LoggedInUser;

  const launch = async (body: Record<string, unknown>) => {
    const response = await ctx.server.request('POST', '/v1/models', { token: ctx.admin.accessToken, body });
    assert.equal(response.status, 200, response.text);
  };
  const keyWith = async (limits: Record<string, unknown> | null, owner: LoggedInUser = caller) => (await createKey(ctx.server, owner.accessToken, { name: 'limited', limits } as never)).key;
  const chat = (token: string, body: Record<string, unknown> = {}) =>
    ctx.server.request('POST', '/v1/chat/completions', { token, body: { model: 'chat', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 5, ...body } });

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    await launch({ model_uid: 'chat', model_name: 'echo' });
    await launch({ model_uid: 'embed', model_name: 'hash-embedding', model_type: 'embedding' });
    await launch({ model_uid: 'remote', model_name: 'r', upstream_base_url: upstream.baseUrl, upstream_model: 'served' });
    caller = await createUser(ctx.server, ctx.admin.accessToken, ['models:read', 'keys:create']);
  });
  afterAll(() => upstream.close());

  it('refuses a key past its requests per minute with 429 rate_limit_exceeded, Retry-After and the headers, and admits again once it refills', async () => {
    const key = await keyWith({ requests_per_minute: 2 });
    const first = await chat(key);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers.get('x-ratelimit-limit-requests'), '2');
    assert.equal(first.headers.get('x-ratelimit-remaining-requests'), '1');
    assert.match(first.headers.get('x-ratelimit-reset-requests') ?? '', /^\d+(\.\d+)?(ms|s)$/);
    assert.equal(first.headers.get('x-ratelimit-limit-tokens'), null, 'no token limit, no token headers');
    const second = await chat(key);
    assert.equal(second.status, 200);
    assert.equal(second.headers.get('x-ratelimit-remaining-requests'), '0');

    const refused = await chat(key);
    assertError(refused, 429, 'rate_limit_exceeded');
    assert.equal(refused.body.error.type, 'rate_limit_error');
    assert.match(refused.body.detail, /requests per minute/);
    const waitMs = Number(refused.headers.get('retry-after-ms'));
    assert.ok(waitMs > 0 && waitMs <= 30_000, `retry-after-ms ${waitMs}`);
    assert.equal(refused.headers.get('retry-after'), String(Math.ceil(waitMs / 1000)));
    assert.equal(refused.headers.get('x-ratelimit-limit-requests'), '2');
    assert.equal(refused.headers.get('x-ratelimit-remaining-requests'), '0');

    clock.advance(waitMs);
    assert.equal((await chat(key)).status, 200, 'admitted once the wait named has passed');
  });

  it('limits embeddings and completions too', async () => {
    const key = await keyWith({ requests_per_minute: 1 });
    const embedded = await ctx.server.request('POST', '/v1/embeddings', { token: key, body: { model: 'embed', input: 'some text' } });
    assert.equal(embedded.status, 200, embedded.text);
    assert.equal(embedded.headers.get('x-ratelimit-limit-requests'), '1');
    assertError(await ctx.server.request('POST', '/v1/embeddings', { token: key, body: { model: 'embed', input: 'more' } }), 429, 'rate_limit_exceeded');
    assertError(await ctx.server.request('POST', '/v1/completions', { token: key, body: { model: 'remote', prompt: 'more' } }), 429, 'rate_limit_exceeded');
    clock.advance(60_000);
  });

  it('counts tokens per minute: an estimate above the whole limit waits until the limit is full, and the token headers show it', async () => {
    const key = await keyWith({ tokens_per_minute: 100 });
    const small = await chat(key);
    assert.equal(small.status, 200, small.text);
    assert.equal(small.headers.get('x-ratelimit-limit-tokens'), '100');
    const used = small.body.usage.total_tokens as number;
    assert.equal(small.headers.get('x-ratelimit-remaining-tokens'), String(100 - used), 'settled with the engine\'s usage, not the estimate');
    const large = await chat(key, { max_tokens: 500 });
    assertError(large, 429, 'rate_limit_exceeded');
    assert.match(large.body.detail, /tokens per minute/);
    clock.advance(Number(large.headers.get('retry-after-ms')));
    const admitted = await chat(key, { max_tokens: 500 });
    assert.equal(admitted.status, 200, admitted.text);
    clock.advance(60_000);
  });

  it('holds a key to its per-model limits and to its owner\'s limits on every key and session', async () => {
    const perModel = await keyWith({ models: [{ model: 'chat', requests_per_minute: 1 }] });
    assert.equal((await chat(perModel)).status, 200);
    const refused = await chat(perModel);
    assertError(refused, 429, 'rate_limit_exceeded');
    assert.match(refused.body.detail, /on model chat/);
    assert.equal((await ctx.server.request('POST', '/v1/embeddings', { token: perModel, body: { model: 'embed', input: 'x' } })).status, 200, 'another model is not limited');

    const owner = await createUser(ctx.server, ctx.admin.accessToken, ['models:read', 'keys:create']);
    const keyA = await keyWith(null, owner);
    const keyB = await keyWith(null, owner);
    const set = await ctx.server.request('PUT', `/v1/admin/users/${owner.id}`, { token: ctx.admin.accessToken, body: { limits: { requests_per_minute: 2 } } });
    assert.equal(set.status, 200, set.text);
    assert.equal((await chat(keyA)).status, 200);
    assert.equal((await chat(keyB)).status, 200);
    const session = await chat(owner.accessToken);
    assertError(session, 429, 'rate_limit_exceeded');
    assert.match(session.body.detail, new RegExp(`user ${owner.id}`));
    clock.advance(60_000);
  });

  it('admits a stream or refuses it at its start by its estimate, never midway', async () => {
    const key = await keyWith({ tokens_per_minute: 1000 });
    upstream.mode = { kind: 'stall-stream' };
    const held = new AbortController();
    try {
      const first = await fetch(`${ctx.server.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'remote', stream: true, max_tokens: 600, messages: [{ role: 'user', content: 'hi' }] }),
        signal: held.signal,
      });
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('x-ratelimit-limit-tokens'), '1000');
      const second = await ctx.server.request('POST', '/v1/chat/completions', { token: key, body: { model: 'remote', stream: true, max_tokens: 600, messages: [{ role: 'user', content: 'hi' }] } });
      assertError(second, 429, 'rate_limit_exceeded');
      assert.match(second.headers.get('content-type') ?? '', /application\/json/, 'refused before any event was sent');
    } finally {
      held.abort();
      upstream.mode = { kind: 'ok' };
    }
    clock.advance(60_000);
  });

  it('caps requests in flight under parallel streamed calls, and frees the slot when a stream ends', async () => {
    const key = await keyWith({ max_concurrent_requests: 2 });
    upstream.mode = { kind: 'stall-stream' };
    const controllers: AbortController[] = [];
    const open = () => {
      const controller = new AbortController();
      controllers.push(controller);
      return fetch(`${ctx.server.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'remote', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
        signal: controller.signal,
      });
    };
    try {
      const answers = await Promise.all(Array.from({ length: 6 }, open));
      const statuses = answers.map((answer) => answer.status).sort();
      assert.deepEqual(statuses, [200, 200, 429, 429, 429, 429]);
      for (const refused of answers.filter((answer) => answer.status === 429)) {
        assert.equal(refused.headers.get('retry-after'), '1');
        assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'rate_limit_exceeded');
      }
      const streaming = answers.findIndex((answer) => answer.status === 200);
      controllers[streaming]?.abort();
      upstream.mode = { kind: 'ok' };
      // The slot is given back when the server sees the stream end: poll, bounded.
      let admitted = 0;
      for (let attempt = 0; attempt < 200 && admitted === 0; attempt += 1) {
        const next = await ctx.server.request('POST', '/v1/chat/completions', { token: key, body: { model: 'chat', messages: [{ role: 'user', content: 'again' }] } });
        if (next.status === 200) admitted += 1;
        else assertError(next, 429, 'rate_limit_exceeded');
      }
      assert.equal(admitted, 1, 'a slot freed when a stream ended');
    } finally {
      for (const controller of controllers) controller.abort();
      upstream.mode = { kind: 'ok' };
    }
  });

  it('asks the engine for the stream\'s usage, keeps that chunk from a caller who did not ask, and meters real tokens (estimated without usage)', async () => {
    const key = await createKey(ctx.server, caller.accessToken, { name: 'metered' });
    upstream.received.length = 0;
    const streamed = await ctx.server.request('POST', '/v1/chat/completions', { token: key.key, body: { model: 'remote', stream: true, messages: [{ role: 'user', content: 'hi' }] } });
    assert.equal(streamed.status, 200);
    assert.deepEqual(upstream.received[0]?.body['stream_options'], { include_usage: true });
    const chunks = events(streamed.text).slice(0, -1).map((data) => JSON.parse(data) as Record<string, unknown>);
    assert.ok(chunks.length > 0);
    for (const chunk of chunks) {
      assert.ok(!('usage' in chunk), 'no usage the caller did not ask for');
      assert.ok(Array.isArray(chunk['choices']) && chunk['choices'].length > 0);
    }
    const builtin = await ctx.server.request('POST', '/v1/chat/completions', { token: key.key, body: { model: 'chat', stream: true, messages: [{ role: 'user', content: 'three words here' }] } });
    assert.equal(builtin.status, 200);
    assert.ok(events(builtin.text).every((data) => data === '[DONE]' || !('usage' in (JSON.parse(data) as object))));
    const noUsage = await ctx.server.request('POST', '/v1/completions', { token: key.key, body: { model: 'remote', prompt: 'an upstream answer without usage' } });
    assert.equal(noUsage.status, 200);

    const report = await ctx.server.request('GET', `/v1/usage?group_by=model&interval=hour&key_id=${key.id}&start=now-1h`, { token: caller.accessToken });
    assert.equal(report.status, 200, report.text);
    const byModel = new Map(report.body.data.map((row: { group: string }) => [row.group, row]));
    const remote = byModel.get('remote') as Record<string, number>;
    assert.equal(remote['calls'], 2);
    assert.equal(remote['estimated_calls'], 1, 'the completion without usage is estimated');
    assert.ok(remote['completion_tokens']! >= 3);
    const chatRow = byModel.get('chat') as Record<string, number>;
    assert.equal(chatRow['calls'], 1);
    assert.equal(chatRow['estimated_calls'], 0);
    assert.equal(chatRow['completion_tokens'], 3, 'the built-in engine\'s usage');
  });

  it('meters refused calls as errors (calls to models the caller cannot use not at all), and counts tokens by model and key id in /metrics', async () => {
    const key = await createKey(ctx.server, caller.accessToken, { name: 'counted', limits: { requests_per_minute: 1 } } as never);
    const unknown = await chat(key.key, { model: 'no-such-model' });
    assertError(unknown, 404, 'model_not_found');
    assert.equal(unknown.headers.get('x-ratelimit-limit-requests'), null, 'a model the caller cannot use is no model call');
    const answered = await chat(key.key);
    assert.equal(answered.status, 200);
    assertError(await chat(key.key), 429, 'rate_limit_exceeded');
    const report = await ctx.server.request('GET', `/v1/usage?group_by=key&interval=hour&key_id=${key.id}&start=now-1h`, { token: caller.accessToken });
    assert.equal(report.body.data.length, 1);
    assert.equal(report.body.data[0].calls, 2, 'the call to an unknown model is not metered');
    assert.equal(report.body.data[0].errors, 1);
    assert.equal(report.body.data[0].total_tokens, answered.body.usage.total_tokens);
    const metrics = await ctx.server.request('GET', '/metrics', { token: ctx.admin.accessToken });
    assert.match(metrics.text, new RegExp(`svc_key_tokens_total\\{key_id="${key.id}",kind="completion"\\} ${answered.body.usage.completion_tokens}`));
    assert.match(metrics.text, /svc_model_tokens_total\{model="chat",kind="prompt"\} \d+/);
    assert.match(metrics.text, /svc_usage_limited_total\{code="rate_limit_exceeded"\} [1-9]/);
    clock.advance(60_000);
  });

  it('refuses past a daily budget with budget_exceeded until the next UTC day, and a monthly one until the 1st', async () => {
    const message = `${'word '.repeat(100)}`.trim();
    const exhaust = async (key: string) => {
      for (let call = 0; call < 20; call += 1) {
        const response = await chat(key, { max_tokens: 150, messages: [{ role: 'user', content: message }] });
        if (response.status === 429) return response;
        assert.equal(response.status, 200, response.text);
      }
      assert.fail('the budget never ran out');
    };
    const daily = await keyWith({ token_budget: { tokens: 600, period: 'day' } });
    const monthly = await keyWith({ token_budget: { tokens: 600, period: 'month' } });

    clock.set(Date.UTC(2026, 10, 25, 23, 50));
    const refused = await exhaust(daily);
    assertError(refused, 429, 'budget_exceeded');
    assert.equal(Number(refused.headers.get('retry-after-ms')), Date.UTC(2026, 10, 26) - clock.now(), 'until midnight UTC');
    assert.match(refused.body.detail, /per day/);
    clock.set(Date.UTC(2026, 10, 26, 0, 0, 1));
    assert.equal((await chat(daily)).status, 200, 'a new day, a new budget');

    clock.set(Date.UTC(2026, 10, 30, 23, 59));
    const monthRefused = await exhaust(monthly);
    assertError(monthRefused, 429, 'budget_exceeded');
    assert.equal(Number(monthRefused.headers.get('retry-after-ms')), Date.UTC(2026, 11, 1) - clock.now(), 'until the 1st, 00:00 UTC');
    clock.set(Date.UTC(2026, 11, 1, 0, 0, 1));
    assert.equal((await chat(monthly)).status, 200, 'a new month, a new budget');
    // The admin's access token is long expired at this clock: log in again for anything after this.
    await login(ctx.server, adminCredentials.username, adminCredentials.password);
  });
});
