import assert from 'node:assert/strict';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { Client, RateLimitError } from '../index.js';
import { BASE_URL, errorBody } from '../testing/fixtures.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const newClient = () => new Client({ baseUrl: BASE_URL, apiKey: 'sk-svc-test', maxRetries: 0 });

describe('usage and limits in the SDK', () => {
  it('Should ask for JSON rows with the filters given, and for CSV text on export', async () => {
    const seen: string[] = [];
    server.use(
      http.get(`${BASE_URL}/v1/usage`, ({ request }) => {
        const url = new URL(request.url);
        seen.push(url.search);
        if (url.searchParams.get('format') === 'csv') return new HttpResponse('period_start,group\r\n', { headers: { 'content-type': 'text/csv; charset=utf-8' } });
        return HttpResponse.json({ start: '2026-11-24T00:00:00.000Z', end: '2026-11-25T00:00:00.000Z', group_by: 'key', interval: 'hour', scope: 'own', data: [] });
      }),
    );
    const report = await newClient().usage.report({ start: 'now-1d', group_by: 'key', interval: 'hour' });
    assert.equal(report.group_by, 'key');
    assert.equal(await newClient().usage.exportCsv({ model: 'llama-3' }), 'period_start,group\r\n');
    assert.deepEqual(seen, ['?start=now-1d&group_by=key&interval=hour&format=json', '?model=llama-3&format=csv']);
  });

  it('Should send limits as the update of a key, a user and the settings', async () => {
    const bodies: unknown[] = [];
    const record = async ({ request }: { request: Request }) => {
      bodies.push(await request.json());
      return HttpResponse.json({});
    };
    server.use(http.put(`${BASE_URL}/v1/admin/keys/:id`, record), http.put(`${BASE_URL}/v1/admin/users/:id`, record), http.put(`${BASE_URL}/v1/admin/security/rate-limit`, record));
    const client = newClient();
    await client.keys.setLimits('k1', { requests_per_minute: 60, models: [{ model: 'llama-3', tokens_per_minute: 1000 }] });
    await client.users.setLimits('u1', null);
    await client.security.setDefaultKeyLimits({ token_budget: { tokens: 5_000_000, period: 'month' } });
    assert.deepEqual(bodies, [
      { limits: { requests_per_minute: 60, models: [{ model: 'llama-3', tokens_per_minute: 1000 }] } },
      { limits: null },
      { default_key_limits: { token_budget: { tokens: 5_000_000, period: 'month' } } },
    ]);
  });

  it('Should surface a usage limit’s 429 as RateLimitError with its code, wait and rate limits', async () => {
    server.use(
      http.post(`${BASE_URL}/v1/chat/completions`, () =>
        HttpResponse.json(errorBody('rate_limit_exceeded', 'Rate limit reached', 'rate_limit_error'), {
          status: 429,
          headers: {
            'retry-after': '2',
            'retry-after-ms': '1500',
            'x-ratelimit-limit-requests': '60',
            'x-ratelimit-remaining-requests': '0',
            'x-ratelimit-reset-requests': '1.5s',
            'x-ratelimit-limit-tokens': '1000',
            'x-ratelimit-remaining-tokens': '400',
            'x-ratelimit-reset-tokens': '36s',
          },
        }),
      ),
    );
    const error = await newClient()
      .inference.chatCompletion({ model: 'llama-3', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof RateLimitError, String(error));
    assert.equal(error.code, 'rate_limit_exceeded');
    assert.equal(error.retryAfter, 2);
    assert.deepEqual(error.rateLimits, { requests: { limit: 60, remaining: 0, resetMs: 1500 }, tokens: { limit: 1000, remaining: 400, resetMs: 36_000 } });
  });
});
