/**
 * The real `openai` npm package hitting svc's usage limits (issue 17): it raises its
 * `RateLimitError` carrying svc's 429 body and headers, reads the `x-ratelimit-*` headers of
 * every answer, and its retry logic waits for what `retry-after-ms` names and then succeeds. The
 * server reads an injected `ManualClock`, so no test waits for a limit to refill.
 */
import assert from 'node:assert/strict';
import { beforeAll, describe, it } from 'vitest';
import OpenAI, { RateLimitError } from 'openai';
import { createKey, createUser, ManualClock, useServerWithAdmin } from '@svc/server/testing';

describe('the openai npm package hitting a usage limit', () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 24, 12));
  const ctx = useServerWithAdmin({ clock });
  let apiKey: string;

  beforeAll(async () => {
    const launched = await ctx.server.request('POST', '/v1/models', { token: ctx.admin.accessToken, body: { model_uid: 'chat', model_name: 'echo' } });
    assert.equal(launched.status, 200, launched.text);
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['models:read', 'keys:create']);
    apiKey = (await createKey(ctx.server, user.accessToken, { name: 'openai', limits: { requests_per_minute: 2, tokens_per_minute: 10_000 } } as never)).key;
  });

  const ask = (client: OpenAI) => client.chat.completions.create({ model: 'chat', max_tokens: 8, messages: [{ role: 'user', content: 'Hello, limits' }] });

  it('reads the x-ratelimit headers of an answer, then raises RateLimitError with svc\'s code and Retry-After', async () => {
    const client = new OpenAI({ baseURL: `${ctx.server.baseUrl}/v1`, apiKey, maxRetries: 0 });
    const { data, response } = await ask(client).withResponse();
    assert.equal(data.choices[0]?.message.content, 'Hello, limits');
    assert.equal(response.headers.get('x-ratelimit-limit-requests'), '2');
    assert.equal(response.headers.get('x-ratelimit-remaining-requests'), '1');
    assert.equal(response.headers.get('x-ratelimit-limit-tokens'), '10000');
    assert.equal(response.headers.get('x-ratelimit-remaining-tokens'), String(10_000 - (data.usage?.total_tokens ?? 0)));
    assert.match(response.headers.get('x-ratelimit-reset-requests') ?? '', /^\d+(\.\d+)?(ms|s)$/);
    await ask(client);

    const error = await ask(client).then(
      () => assert.fail('the third call within the minute was admitted'),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof RateLimitError, `expected RateLimitError, got ${String(error)}`);
    assert.equal(error.status, 429);
    assert.equal(error.code, 'rate_limit_exceeded');
    assert.equal(error.type, 'rate_limit_error');
    assert.match(error.message, /requests per minute/);
    assert.equal(error.headers.get('x-ratelimit-remaining-requests'), '0');
    const waitMs = Number(error.headers.get('retry-after-ms'));
    assert.ok(waitMs > 0 && waitMs <= 30_000, `retry-after-ms ${waitMs}`);
    assert.equal(error.headers.get('retry-after'), String(Math.ceil(waitMs / 1000)));
    clock.advance(60_000);
  });

  it('retries after the wait the headers name, and the retry succeeds', async () => {
    const seen: Array<{ status: number; retryAfterMs: string | null }> = [];
    // openai 6 sleeps for `retry-after-ms` exactly as given (no cap). The server's clock is a
    // ManualClock: on a 429 this fetch moves it by the wait the server named (as that much real time
    // would have passed for a client that waited), then hands the package the 429 with
    // `retry-after-ms: 1`, so it sleeps 1 ms instead of seconds. The package still decides to retry
    // and when, from the headers.
    const fetchMovingTheClock: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const retryAfterMs = response.headers.get('retry-after-ms');
      seen.push({ status: response.status, retryAfterMs });
      if (response.status !== 429 || retryAfterMs === null) return response;
      clock.advance(Number(retryAfterMs));
      const headers = new Headers(response.headers);
      headers.set('retry-after-ms', '1');
      return new Response(await response.text(), { status: response.status, statusText: response.statusText, headers });
    };
    const client = new OpenAI({ baseURL: `${ctx.server.baseUrl}/v1`, apiKey, maxRetries: 2, fetch: fetchMovingTheClock });
    await ask(client);
    await ask(client);
    const retried = await ask(client);
    assert.equal(retried.choices[0]?.message.content, 'Hello, limits');
    assert.deepEqual(
      seen.map((entry) => entry.status),
      [200, 200, 429, 200],
      'one refusal, then the retry the package made on its own succeeded',
    );
    assert.ok(Number(seen[2]?.retryAfterMs) > 0);

    const refusedAgain = new OpenAI({ baseURL: `${ctx.server.baseUrl}/v1`, apiKey, maxRetries: 0 });
    await ask(refusedAgain).then(
      () => assert.fail('admitted past the limit'),
      (caught: unknown) => assert.ok(caught instanceof RateLimitError),
    );
  });
});
