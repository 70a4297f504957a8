import assert from 'node:assert/strict';
import { afterAll, afterEach, beforeAll, describe, it, vi } from 'vitest';
import { delay, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  SvcError,
  Client,
  ConflictError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
  type ClientOptions,
  type ErrorBody,
  type ErrorCode,
  type Me,
  type User,
} from './index.js';
import { BASE_URL, adminMe, errorBody, alice } from './testing/fixtures.js';



/** Error answers the retry logic has to tell apart. The svc server never sends 429 itself (a gateway might). */
const retryableAnswers: { status: number; body: ErrorBody; Class: typeof APIError }[] = [
  { status: 408, body: errorBody('request_timeout', 'Request timeout', 'invalid_request_error'), Class: APIError },
  { status: 429, body: errorBody('service_unavailable', 'Too many requests', 'rate_limit_error'), Class: RateLimitError },
  { status: 500, body: errorBody('internal_error', 'Internal server error', 'server_error'), Class: InternalServerError },
  { status: 503, body: errorBody('service_unavailable', 'The database is unavailable', 'server_error'), Class: InternalServerError },
];

const me: Me = { ...adminMe, auth_type: 'api_key', api_key: { id: 'key-1', name: 'ci', key_prefix: 'sk-svc-abc' } };


/** An answer that asks for an immediate retry, so tests do not wait for the backoff. */
function failing(status: number, body: ErrorBody, headers: Record<string, string> = { 'retry-after-ms': '1' }): Response {
  return HttpResponse.json(body, { status, headers });
}

function newClient(options: Partial<ClientOptions> = {}): Client {
  return new Client({ baseUrl: BASE_URL, apiKey: 'sk-svc-test', ...options });
}

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/**
 * Runs `call` on a fake clock: every wait of the transport (backoff, `Retry-After`) passes at once,
 * and the fake clock's total says how long the call would have waited. Between two timers, real I/O
 * (msw answering) gets a turn. Bounded: a call still pending after 50 timers fails the test.
 */
async function onFakeClock<T>(call: () => Promise<T>): Promise<{ outcome: T | unknown; waitedMs: number }> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const start = Date.now();
  try {
    let settled = false;
    const outcome = call().then(
      (value) => value,
      (error: unknown) => error,
    ).finally(() => (settled = true));
    for (let step = 0; !settled && step < 50; step += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      if (!settled && vi.getTimerCount() > 0) await vi.advanceTimersToNextTimerAsync();
    }
    assert.ok(settled, 'the call did not settle within 50 timers');
    return { outcome: await outcome, waitedMs: Date.now() - start };
  } finally {
    vi.useRealTimers();
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail('expected the call to fail'),
    (error: unknown) => error,
  );
}

describe('transport retries', () => {
  for (const { status, body, Class } of retryableAnswers) {
    it(`Should retry a GET answered ${status} twice by default, then throw ${Class.name}`, async () => {
      let attempts = 0;
      server.use(
        http.get(`${BASE_URL}/v1/auth/me`, () => {
          attempts += 1;
          return failing(status, body);
        }),
      );
      const error = await rejection(newClient().auth.me());
      assert.equal(attempts, 3);
      assert.ok(error instanceof Class);
      assert.equal(error.constructor, Class);
      assert.equal(error.status, status);
      assert.equal(error.code, body.error.code);
      assert.equal(error.message, body.detail);
    });
  }

  it('Should return the first success after failed attempts, in order', async () => {
    const seen: number[] = [];
    const answers = [503, 500, 200];
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, () => {
        const status = answers[seen.length] ?? 200;
        seen.push(status);
        return status === 200 ? HttpResponse.json(me) : failing(status, errorBody('internal_error', 'Internal server error', 'server_error'));
      }),
    );
    assert.deepEqual(await newClient().auth.me(), me);
    assert.deepEqual(seen, [503, 500, 200]);
  });

  it('Should back off on its own when the answer names no wait', async () => {
    let attempts = 0;
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, () => {
        attempts += 1;
        return attempts < 3 ? HttpResponse.json(errorBody('internal_error', 'Internal server error', 'server_error'), { status: 500 }) : HttpResponse.json(me);
      }),
    );
    const { outcome, waitedMs } = await onFakeClock(() => newClient().auth.me());
    assert.deepEqual(outcome, me);
    assert.equal(attempts, 3);
    // 0.5 s then 1 s, each with up to 25 % jitter taken off.
    assert.ok(waitedMs >= 0.75 * 1500 && waitedMs <= 1500, `waited ${waitedMs} ms`);
  });

  it('Should cap the backoff at 8 s', async () => {
    let attempts = 0;
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, () => {
        attempts += 1;
        return HttpResponse.json(errorBody('internal_error', 'Internal server error', 'server_error'), { status: 500 });
      }),
    );
    const { outcome, waitedMs } = await onFakeClock(() => newClient({ maxRetries: 6 }).auth.me());
    assert.ok(outcome instanceof InternalServerError);
    assert.equal(attempts, 7);
    // 0.5 + 1 + 2 + 4 + 8 + 8 s at most (the last two capped), at least 75 % of it.
    assert.ok(waitedMs >= 0.75 * 23_500 && waitedMs <= 23_500, `waited ${waitedMs} ms`);
  });

  it('Should make as many attempts as maxRetries allows', async () => {
    let attempts = 0;
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, () => {
        attempts += 1;
        return failing(503, errorBody('service_unavailable', 'The database is unavailable', 'server_error'));
      }),
    );
    await assert.rejects(newClient({ maxRetries: 4 }).auth.me(), InternalServerError);
    assert.equal(attempts, 5);
  });

  it('Should not retry at all with maxRetries: 0', async () => {
    let attempts = 0;
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, () => {
        attempts += 1;
        return failing(503, errorBody('service_unavailable', 'The database is unavailable', 'server_error'));
      }),
    );
    await assert.rejects(newClient({ maxRetries: 0 }).auth.me(), InternalServerError);
    assert.equal(attempts, 1);
  });

  it('Should never retry a POST', async () => {
    for (const { status, body, Class } of retryableAnswers) {
      let attempts = 0;
      server.use(
        http.post(`${BASE_URL}/v1/admin/users`, () => {
          attempts += 1;
          return failing(status, body);
        }),
      );
      const error = await rejection(newClient().users.create({ username: 'alice', password: 'correct horse battery staple' }));
      assert.equal(attempts, 1, `POST answered ${status}`);
      assert.ok(error instanceof Class);
    }
  });

  it('Should retry a PUT (idempotent) and send the same body on every attempt', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.put(`${BASE_URL}/v1/admin/users/:userId`, async ({ request, params }) => {
        assert.equal(params['userId'], 'user-2');
        bodies.push(await request.json());
        return bodies.length < 3 ? failing(500, errorBody('internal_error', 'Internal server error', 'server_error')) : HttpResponse.json({ ...alice, enabled: false });
      }),
    );
    const updated = await newClient().users.update('user-2', { enabled: false, permissions: ['models:list'] });
    assert.equal(updated.enabled, false);
    assert.deepEqual(bodies, [
      { enabled: false, permissions: ['models:list'] },
      { enabled: false, permissions: ['models:list'] },
      { enabled: false, permissions: ['models:list'] },
    ]);
  });

  it('Should retry a DELETE (idempotent)', async () => {
    let attempts = 0;
    server.use(
      http.delete(`${BASE_URL}/v1/admin/keys/:keyId`, () => {
        attempts += 1;
        return attempts === 1 ? failing(503, errorBody('service_unavailable', 'The database is unavailable', 'server_error')) : new HttpResponse(null, { status: 204 });
      }),
    );
    await newClient().keys.delete('key-1');
    assert.equal(attempts, 2);
  });

  it('Should not retry 4xx answers other than 408 and 429', async () => {
    const answers: { status: number; body: ErrorBody; Class: typeof APIError }[] = [
      { status: 404, body: errorBody('not_found', 'Not found', 'not_found_error'), Class: NotFoundError },
      { status: 409, body: errorBody('last_admin', 'Cannot remove the last administrator', 'conflict_error'), Class: ConflictError },
    ];
    for (const { status, body, Class } of answers) {
      let attempts = 0;
      server.use(
        http.get(`${BASE_URL}/v1/auth/me`, () => {
          attempts += 1;
          return failing(status, body);
        }),
      );
      await assert.rejects(newClient().auth.me(), Class);
      assert.equal(attempts, 1, `GET answered ${status}`);
    }
  });
});

describe('transport waits the server asks for', () => {
  /** Answers 429 with `headers` once, then succeeds; returns the number of attempts of one `me()`. */
  async function attemptsAfter429(headers: Record<string, string>): Promise<{ attempts: number; result: unknown }> {
    let attempts = 0;
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, () => {
        attempts += 1;
        return attempts === 1 ? failing(429, errorBody('service_unavailable', 'Too many requests', 'rate_limit_error'), headers) : HttpResponse.json(me);
      }),
    );
    const result = await newClient().auth.me().catch((error: unknown) => error);
    return { attempts, result };
  }

  it('Should honour retry-after-ms', async () => {
    const { attempts, result } = await attemptsAfter429({ 'retry-after-ms': '5' });
    assert.equal(attempts, 2);
    assert.deepEqual(result, me);
  });

  it('Should honour Retry-After: 0', async () => {
    const { attempts, result } = await attemptsAfter429({ 'retry-after': '0' });
    assert.equal(attempts, 2);
    assert.deepEqual(result, me);
  });

  it('Should honour Retry-After in seconds', async () => {
    const { outcome, waitedMs } = await onFakeClock(() => attemptsAfter429({ 'retry-after': '7' }));
    assert.deepEqual(outcome, { attempts: 2, result: me });
    assert.equal(waitedMs, 7000);
  });

  it('Should honour Retry-After as an HTTP date', async () => {
    const { attempts, result } = await attemptsAfter429({ 'retry-after': new Date(Date.now() - 1000).toUTCString() });
    assert.equal(attempts, 2);
    assert.deepEqual(result, me);
  });

  it('Should prefer retry-after-ms over Retry-After', async () => {
    // Retry-After alone would be too long to wait for; the millisecond header wins, so the call is retried.
    const { attempts, result } = await attemptsAfter429({ 'retry-after-ms': '1', 'retry-after': '3600' });
    assert.equal(attempts, 2);
    assert.deepEqual(result, me);
  });

  it('Should return the answer at once when Retry-After asks for more than 60 s', async () => {
    const { attempts, result } = await attemptsAfter429({ 'retry-after': '3600' });
    assert.equal(attempts, 1);
    assert.ok(result instanceof RateLimitError);
    assert.equal(result.headers.get('retry-after'), '3600');
  });

  it('Should return the answer at once when retry-after-ms asks for more than 60 s', async () => {
    const { attempts, result } = await attemptsAfter429({ 'retry-after-ms': '61000' });
    assert.equal(attempts, 1);
    assert.ok(result instanceof RateLimitError);
  });
});

describe('transport connection failures and timeouts', () => {
  it('Should throw APIConnectionError after retrying a GET whose connection fails', async () => {
    let attempts = 0;
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, () => {
        attempts += 1;
        return HttpResponse.error();
      }),
    );
    const { outcome: error } = await onFakeClock(() => newClient().auth.me());
    assert.equal(attempts, 3);
    assert.ok(error instanceof APIConnectionError);
    assert.ok(!(error instanceof APIConnectionTimeoutError));
    assert.ok(!(error instanceof APIError));
    assert.match(error.message, /Could not reach the svc server at http:\/\/svc\.test\/v1\/auth\/me/);
    assert.ok(error.cause !== undefined);
  });

  it('Should recover when a retried GET reaches the server', async () => {
    let attempts = 0;
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, () => {
        attempts += 1;
        return attempts === 1 ? HttpResponse.error() : HttpResponse.json(me);
      }),
    );
    assert.deepEqual(await newClient().auth.me(), me);
    assert.equal(attempts, 2);
  });

  it('Should not retry a POST whose connection fails', async () => {
    let attempts = 0;
    server.use(
      http.post(`${BASE_URL}/v1/admin/users`, () => {
        attempts += 1;
        return HttpResponse.error();
      }),
    );
    await assert.rejects(newClient().users.create({ username: 'alice', password: 'correct horse battery staple' }), APIConnectionError);
    assert.equal(attempts, 1);
  });

  it('Should throw APIConnectionTimeoutError when the server does not answer within the timeout', async () => {
    let attempts = 0;
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, async () => {
        attempts += 1;
        await delay('infinite');
        return HttpResponse.json(me);
      }),
    );
    const error = await rejection(newClient({ timeout: 50, maxRetries: 0 }).auth.me());
    assert.ok(error instanceof APIConnectionTimeoutError);
    assert.ok(error instanceof APIConnectionError);
    assert.match(error.message, /50 ms/);
    assert.equal(attempts, 1);
  });

  it('Should retry a GET that timed out', async () => {
    let attempts = 0;
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, async () => {
        attempts += 1;
        if (attempts === 1) await delay('infinite');
        return HttpResponse.json(me);
      }),
    );
    assert.deepEqual(await newClient({ timeout: 50, maxRetries: 1 }).auth.me(), me);
    assert.equal(attempts, 2);
  });

  it('Should not retry a POST that timed out', async () => {
    let attempts = 0;
    server.use(
      http.post(`${BASE_URL}/v1/admin/users`, async () => {
        attempts += 1;
        await delay('infinite');
        return HttpResponse.json(alice, { status: 201 });
      }),
    );
    await assert.rejects(newClient({ timeout: 50 }).users.create({ username: 'alice', password: 'correct horse battery staple' }), APIConnectionTimeoutError);
    assert.equal(attempts, 1);
  });

  it('Should not retry a GET the caller aborted, and throw APIUserAbortError', async () => {
    let entered!: () => void;
    const arrived = new Promise<void>((resolve) => (entered = resolve));
    server.use(
      http.get(`${BASE_URL}/v1/auth/me`, async () => {
        entered();
        await delay('infinite');
        return HttpResponse.json(me);
      }),
    );
    let fetches = 0;
    const client = newClient({
      fetch: (input, init) => {
        fetches += 1;
        return globalThis.fetch(input, init);
      },
    });
    const caller = new AbortController();
    const call = client.auth.me({ signal: caller.signal });
    await arrived;
    caller.abort();
    const error = await rejection(call);
    assert.ok(error instanceof APIUserAbortError);
    assert.ok(error instanceof SvcError);
    assert.ok(!(error instanceof APIConnectionError));
    assert.equal(fetches, 1);
  });
});
