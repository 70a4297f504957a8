import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  BadRequestError,
  Client,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  SvcError,
  UnprocessableEntityError,
  type ErrorBody,
  type ErrorCode,
} from './index.js';
import { BASE_URL, errorBody } from './testing/fixtures.js';



describe('APIError.from', () => {
  const cases: { status: number; Class: typeof APIError; body: ErrorBody }[] = [
    { status: 400, Class: BadRequestError, body: errorBody('password_too_short', 'Password must be at least 15 characters', 'invalid_request_error', 'password') },
    { status: 401, Class: AuthenticationError, body: errorBody('invalid_credentials', 'Incorrect username or password', 'authentication_error') },
    { status: 403, Class: PermissionDeniedError, body: errorBody('permission_denied', 'Missing permission: users:manage', 'permission_error') },
    { status: 404, Class: NotFoundError, body: errorBody('user_not_found', 'User not found', 'not_found_error') },
    { status: 409, Class: ConflictError, body: errorBody('username_taken', 'Username already exists', 'conflict_error', 'username') },
    { status: 422, Class: UnprocessableEntityError, body: errorBody('invalid_request', 'Unprocessable', 'invalid_request_error') },
    // The contract has no rate-limit code; the body only has to be well formed here.
    { status: 429, Class: RateLimitError, body: errorBody('service_unavailable', 'Too many requests', 'rate_limit_error') },
    { status: 500, Class: InternalServerError, body: errorBody('internal_error', 'Internal server error', 'server_error') },
    { status: 503, Class: InternalServerError, body: errorBody('service_unavailable', 'The database is unavailable', 'server_error') },
  ];

  for (const { status, Class, body } of cases) {
    it(`Should pick ${Class.name} for status ${status}`, () => {
      const error = APIError.from(status, body, new Headers());
      assert.ok(error instanceof Class);
      assert.ok(error instanceof APIError);
      assert.ok(error instanceof SvcError);
      assert.ok(error instanceof Error);
      assert.equal(error.name, Class.name);
      assert.equal(error.status, status);
      assert.equal(error.code, body.error.code);
      assert.equal(error.message, body.detail);
    });
  }

  it('Should build a plain APIError for a status without a subclass (418)', () => {
    const error = APIError.from(418, errorBody('invalid_request', "I'm a teapot", 'invalid_request_error'), new Headers());
    assert.equal(error.constructor, APIError);
    assert.equal(error.name, 'APIError');
    assert.equal(error.status, 418);
    assert.equal(error.code, 'invalid_request');
    assert.equal(error.message, "I'm a teapot");
  });

  it('Should take message, code, param, requestId, headers and body from the answer', () => {
    const body = errorBody('username_taken', 'Username already exists', 'conflict_error', 'username');
    const headers = new Headers({ 'x-request-id': 'req-123', 'content-type': 'application/json' });
    const error = APIError.from(409, body, headers);
    assert.equal(error.message, 'Username already exists');
    assert.equal(error.code, 'username_taken');
    assert.equal(error.param, 'username');
    assert.equal(error.requestId, 'req-123');
    assert.equal(error.headers, headers);
    assert.equal(error.headers.get('content-type'), 'application/json');
    assert.deepEqual(error.body, body);
  });

  it('Should leave param and requestId undefined when the answer has none (param: null included)', () => {
    const body: ErrorBody = { detail: 'User not found', error: { message: 'User not found', type: 'not_found_error', code: 'user_not_found', param: null } };
    const error = APIError.from(404, body, new Headers());
    assert.equal(error.param, undefined);
    assert.equal(error.requestId, undefined);
  });

  it('Should fall back to `HTTP <status>` with no code when the body is not an error body', () => {
    for (const body of ['<html>Bad Gateway</html>', undefined, null, { message: 'not our shape' }, { detail: 'no error object' }]) {
      const error = APIError.from(502, body, new Headers());
      assert.ok(error instanceof InternalServerError);
      assert.equal(error.message, 'HTTP 502');
      assert.equal(error.code, undefined);
      assert.equal(error.param, undefined);
      assert.deepEqual(error.body, body);
    }
  });
});

describe('APIConnectionError', () => {
  it('Should be an SvcError with no status, and the timeout error a subclass of it', () => {
    const connection = new APIConnectionError();
    assert.ok(connection instanceof SvcError);
    assert.ok(!(connection instanceof APIError));
    assert.equal('status' in connection, false);
    const timeout = new APIConnectionTimeoutError(50);
    assert.ok(timeout instanceof APIConnectionError);
    assert.equal(timeout.name, 'APIConnectionTimeoutError');
    assert.match(timeout.message, /50 ms/);
  });
});

describe('errors thrown by the Client', () => {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());

  it("Should surface the server's error body, code and request id", async () => {
    server.use(
      http.post(`${BASE_URL}/v1/admin/users`, () =>
        HttpResponse.json(errorBody('username_taken', 'Username already exists', 'conflict_error', 'username'), { status: 409, headers: { 'x-request-id': 'req-409' } }),
      ),
    );
    const client = new Client({ baseUrl: BASE_URL, apiKey: 'sk-svc-test' });
    const error = await client.users.create({ username: 'alice', password: 'correct horse battery staple' }).then(
      () => assert.fail('expected a ConflictError'),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof ConflictError);
    assert.equal(error.status, 409);
    assert.equal(error.code, 'username_taken');
    assert.equal(error.param, 'username');
    assert.equal(error.message, 'Username already exists');
    assert.equal(error.requestId, 'req-409');
    assert.deepEqual(error.body, errorBody('username_taken', 'Username already exists', 'conflict_error', 'username'));
  });

  it('Should fall back to `HTTP <status>` and keep the raw text when a proxy answers with HTML', async () => {
    server.use(http.get(`${BASE_URL}/v1/auth/me`, () => new HttpResponse('<html><body>Bad Gateway</body></html>', { status: 502, headers: { 'content-type': 'text/html' } })));
    const client = new Client({ baseUrl: BASE_URL, apiKey: 'sk-svc-test', maxRetries: 0 });
    await assert.rejects(client.auth.me(), (error: unknown) => {
      assert.ok(error instanceof InternalServerError);
      assert.equal(error.message, 'HTTP 502');
      assert.equal(error.code, undefined);
      assert.equal(error.body, '<html><body>Bad Gateway</body></html>');
      return true;
    });
  });
});
