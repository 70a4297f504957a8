import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { delay, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError, Client, InternalServerError, RateLimitError, SvcError } from './index.js';
import { BASE_URL, adminMe, errorBody } from './testing/fixtures.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const newClient = () => new Client({ baseUrl: BASE_URL, apiKey: 'sk-svc-test' });

describe('per-call options (the last argument)', () => {
  it('Should use the call’s maxRetries over the client’s', async () => {
    let attempts = 0;
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, () => {
        attempts += 1;
        return HttpResponse.json(errorBody('service_unavailable', 'The database is unavailable', 'server_error'), { status: 503, headers: { 'retry-after-ms': '0' } });
      }),
    );
    await assert.rejects(newClient().auth.me({ maxRetries: 0 }), InternalServerError);
    assert.equal(attempts, 1);
    attempts = 0;
    await assert.rejects(newClient().auth.me({ maxRetries: 3 }), InternalServerError);
    assert.equal(attempts, 4);
  });

  it('Should use the call’s timeout over the client’s', async () => {
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, async () => {
        await delay('infinite');
        return HttpResponse.json(adminMe);
      }),
    );
    const error = await newClient().auth.me({ timeout: 20, maxRetries: 0 }).catch((caught: unknown) => caught);
    assert.ok(error instanceof APIConnectionTimeoutError);
    assert.match(error.message, /20 ms/);
  });

  it('Should send the call’s headers along with the client’s credentials', async () => {
    let seen: Headers | undefined;
    server.use(
      http.get(`${BASE_URL}/v1/admin/keys`, ({ request }) => {
        seen = request.headers;
        return HttpResponse.json([]);
      }),
    );
    await newClient().keys.list({}, { headers: { 'x-trace-id': 'trace-1' } });
    assert.equal(seen?.get('x-trace-id'), 'trace-1');
    assert.equal(seen?.get('authorization'), 'Bearer sk-svc-test');
  });

  it('Should throw APIUserAbortError for a signal aborted before the call, without sending it', async () => {
    let attempts = 0;
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, () => {
        attempts += 1;
        return HttpResponse.json(adminMe);
      }),
    );
    const error = await newClient().auth.me({ signal: AbortSignal.abort() }).catch((caught: unknown) => caught);
    assert.ok(error instanceof APIUserAbortError);
    assert.equal(attempts, 0);
  });

  it('Should stop waiting between retries when the caller aborts', async () => {
    let attempts = 0;
    const controller = new AbortController();
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, () => {
        attempts += 1;
        // The first answer asks for a long wait; the caller gives up during it.
        queueMicrotask(() => setImmediate(() => controller.abort()));
        return HttpResponse.json(errorBody('service_unavailable', 'busy', 'server_error'), { status: 503, headers: { 'retry-after': '30' } });
      }),
    );
    const error = await newClient().auth.me({ signal: controller.signal }).catch((caught: unknown) => caught);
    assert.ok(error instanceof APIUserAbortError, String(error));
    assert.equal(attempts, 1);
  });
});

describe('RateLimitError.retryAfter', () => {
  for (const [headers, expected] of [
    [{ 'retry-after': '42' }, 42],
    [{ 'retry-after-ms': '1500' }, 2],
    [{}, undefined],
  ] as const) {
    it(`Should be ${String(expected)} for ${JSON.stringify(headers)}`, async () => {
      server.use(http.get(`${BASE_URL}/v1/auth/me`, () => HttpResponse.json(errorBody('ip_banned', 'Too many failures', 'rate_limit_error'), { status: 429, headers })));
      const error = await newClient().auth.me({ maxRetries: 0 }).catch((caught: unknown) => caught);
      assert.ok(error instanceof RateLimitError);
      assert.equal(error.retryAfter, expected);
    });
  }
});

describe('the base URL', () => {
  it('Should refuse a baseUrl ending in /v1 and name the one to use', () => {
    for (const baseUrl of ['http://127.0.0.1:9997/v1', 'http://127.0.0.1:9997/v1/', 'https://svc.example/prefix/V1']) {
      assert.throws(
        () => new Client({ baseUrl, apiKey: 'sk-svc-test' }),
        (error: unknown) => error instanceof SvcError && /ends in \/v1/.test(error.message) && error.message.includes(baseUrl.replace(/\/v1\/?$/i, '')),
      );
    }
  });

  it('Should accept a baseUrl with another path, and one without', () => {
    assert.equal(new Client({ baseUrl: 'https://svc.example/prefix/', apiKey: 'k' }).baseUrl, 'https://svc.example/prefix');
    assert.equal(new Client({ baseUrl: 'http://127.0.0.1:9997', apiKey: 'k' }).baseUrl, 'http://127.0.0.1:9997');
  });

  it('Should refuse a baseUrl that is not a URL', () => {
    assert.throws(() => new Client({ baseUrl: 'not a url', apiKey: 'k' }), SvcError);
  });
});

describe('connection failures', () => {
  it('Should name the URL and the cause when nothing listens (a real closed port)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    server.close(); // msw off: a real connection attempt
    try {
      const error = await new Client({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sk-svc-test', maxRetries: 0 }).auth.me().catch((caught: unknown) => caught);
      assert.ok(error instanceof APIConnectionError);
      assert.ok(error.message.includes(`http://127.0.0.1:${port}/v1/auth/me`), error.message);
      assert.match(error.message, /ECONNREFUSED/);
      assert.doesNotMatch(error.message, /: fetch failed$/);
    } finally {
      server.listen({ onUnhandledRequest: 'error' });
    }
  });
});
