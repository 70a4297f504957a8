/**
 * The msw mock of svc: every answer conforms to the contract (checked by the server's own
 * `ResponseValidator`), credentials and bodies are checked as the server checks them, and a `Client`
 * pointed at the mock works end to end.
 */
import assert from 'node:assert/strict';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { ResponseValidator } from '@svc/server';
import { Client } from '../client.js';
import { APIError, AuthenticationError, ConflictError, SvcError } from '../errors.js';
import type { AuditRecord, ChatCompletionChunk } from '../types.js';
import { operationExamples, type OperationExample } from '../generated/examples.js';
import { createHandlers, errorResponse } from './index.js';

const baseUrl = 'http://svc.test';
const someId = '0192f7a6-1a2b-7c3d-8e4f-5a6b7c8d9e0f';
const validator = new ResponseValidator();
const withBody = (operation: OperationExample) => operation.method === 'POST' || operation.method === 'PUT';

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  pathname: string;
}

/** Calls `operation` on the mock with raw fetch and checks the answer against the contract. */
async function call(operation: OperationExample, init: { authorization?: string; body?: string; contentType?: string } = {}): Promise<Answer> {
  const pathname = operation.path.replace(/\{[^}]+\}/g, someId);
  const headers = new Headers();
  if (init.authorization !== undefined) headers.set('authorization', init.authorization);
  const body = init.body ?? (withBody(operation) ? '{}' : undefined);
  if (body !== undefined) headers.set('content-type', init.contentType ?? 'application/json');
  const response = await fetch(baseUrl + pathname, { method: operation.method, headers, redirect: 'manual', ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  const contentType = response.headers.get('content-type');
  const isJson = contentType === null || contentType.includes('json');
  const parsed: unknown = text === '' ? undefined : isJson ? JSON.parse(text) : text;
  const violation = validator.check(operation.method, pathname, response.status, parsed, contentType);
  assert.equal(violation, null, `${operation.operationId}: ${violation}`);
  return { status: response.status, headers: response.headers, body: parsed, pathname };
}

const privateOperations = operationExamples.filter((operation) => !operation.public);
const publicOperations = operationExamples.filter((operation) => operation.public);

describe('createHandlers', () => {
  const server = setupServer(...createHandlers({ baseUrl }));
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());

  it('answers every operation with its documented success status and example, conforming to the contract', async () => {
    assert.ok(operationExamples.length >= 20, 'the contract has its operations');
    for (const operation of operationExamples) {
      const answer = await call(operation, operation.public ? {} : { authorization: 'Bearer sk-svc-anything' });
      assert.equal(answer.status, operation.status, operation.operationId);
      assert.deepEqual(answer.body, operation.example ?? undefined, operation.operationId);
    }
  });

  it('answers public operations without credentials', async () => {
    assert.ok(publicOperations.length > 0);
    for (const operation of publicOperations) assert.equal((await call(operation)).status, operation.status, operation.operationId);
  });

  it('refuses every other operation without credentials: 401 missing_credentials with WWW-Authenticate: Bearer', async () => {
    for (const operation of privateOperations) {
      const answer = await call(operation);
      assert.equal(answer.status, 401, operation.operationId);
      assert.equal(answer.headers.get('www-authenticate'), 'Bearer', operation.operationId);
      assert.deepEqual(answer.body, {
        detail: 'Not authenticated: send Authorization: Bearer <access token or API key>',
        error: { message: 'Not authenticated: send Authorization: Bearer <access token or API key>', type: 'authentication_error', code: 'missing_credentials' },
      });
    }
  });

  it('refuses an Authorization header that is not Bearer with 400 malformed_authorization_header', async () => {
    for (const operation of privateOperations) {
      const answer = await call(operation, { authorization: 'Basic YWRtaW46cGFzc3dvcmQ=' });
      assert.equal(answer.status, 400, operation.operationId);
      assert.equal((answer.body as { error: { code: string } }).error.code, 'malformed_authorization_header');
    }
  });

  it('refuses a JSON body that is not an object with 400 invalid_request', async () => {
    const bodies = ['[]', 'null', '42', '"text"', '{not json', ''];
    for (const operation of operationExamples.filter(withBody)) {
      for (const body of bodies) {
        const answer = await call(operation, { authorization: 'Bearer sk-svc-anything', body });
        assert.equal(answer.status, 400, `${operation.operationId} with ${JSON.stringify(body)}`);
        assert.equal((answer.body as { error: { code: string } }).error.code, 'invalid_request');
      }
    }
  });

  it('refuses a body that is not JSON with 415 unsupported_media_type', async () => {
    const login = operationExamples.find((operation) => operation.operationId === 'login') as OperationExample;
    const answer = await call(login, { body: 'username=admin', contentType: 'application/x-www-form-urlencoded' });
    assert.equal(answer.status, 415);
    assert.equal((answer.body as { error: { code: string } }).error.code, 'unsupported_media_type');
  });

  it('serves a Client: login, me and keys.create', async () => {
    const client = new Client({ baseUrl });
    const pair = await client.login('admin', 'correct horse battery staple');
    assert.equal(pair.token_type, 'bearer');
    const me = await client.auth.me();
    assert.equal(me.username, 'admin');
    const created = await client.keys.create({ name: 'notebook' });
    assert.match(created.key, /^sk-svc-/);
  });

  it('makes a Client without credentials fail with AuthenticationError', async () => {
    const client = new Client({ baseUrl });
    await assert.rejects(client.keys.list(), (error: unknown) => {
      assert.ok(error instanceof AuthenticationError);
      assert.equal(error.status, 401);
      assert.equal(error.code, 'missing_credentials');
      return true;
    });
  });

  it('answers an override in place of the example, after the credentials check', async () => {
    server.use(
      ...createHandlers({
        baseUrl,
        overrides: {
          createUser: () => errorResponse(409, 'username_taken', 'A user named alice already exists'),
          getMe: () => undefined,
        },
      }),
    );
    const client = new Client({ baseUrl, apiKey: 'sk-svc-anything' });
    await assert.rejects(client.users.create({ username: 'alice', password: 'alice has a long passphrase' }), (error: unknown) => {
      assert.ok(error instanceof ConflictError);
      assert.equal(error.code, 'username_taken');
      assert.equal(error.message, 'A user named alice already exists');
      return true;
    });
    assert.equal((await client.auth.me()).username, 'admin', 'an override answering undefined falls back to the example');
    await assert.rejects(new Client({ baseUrl }).users.create({ username: 'alice', password: 'alice has a long passphrase' }), AuthenticationError);
  });

  it('builds error answers that conform to the contract, with WWW-Authenticate on 401', async () => {
    server.use(
      http.get(`${baseUrl}/v1/auth/me`, () => errorResponse(401, 'token_expired', 'Access token expired')),
      http.get(`${baseUrl}/v1/admin/users`, () => errorResponse(403, 'permission_denied', 'Missing permission: users:manage')),
      http.get(`${baseUrl}/v1/admin/keys`, () => errorResponse(503, 'service_unavailable', 'The service is temporarily unavailable')),
    );
    const cases = [
      { path: '/v1/auth/me', status: 401, type: 'authentication_error', authenticate: 'Bearer error="invalid_token"' },
      { path: '/v1/admin/users', status: 403, type: 'permission_error', authenticate: null },
      { path: '/v1/admin/keys', status: 503, type: 'server_error', authenticate: null },
    ];
    for (const expected of cases) {
      const response = await fetch(baseUrl + expected.path);
      const body = (await response.json()) as { detail: string; error: { message: string; type: string } };
      assert.equal(response.status, expected.status);
      assert.equal(validator.check('GET', expected.path, response.status, body), null);
      assert.equal(body.error.type, expected.type);
      assert.equal(body.error.message, body.detail);
      assert.equal(response.headers.get('www-authenticate'), expected.authenticate);
    }
  });

  it('streams a chat completion asked for with stream: true as server-sent events, and the SDK reads it', async () => {
    const client = new Client({ baseUrl, apiKey: 'sk-svc-anything' });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of client.inference.streamChatCompletion({ model: 'my-echo', messages: [{ role: 'user', content: 'Hello' }] })) chunks.push(chunk);
    assert.ok(chunks.length >= 3);
    assert.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
    assert.equal(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''), 'Hello');
    assert.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'stop');
    assert.ok(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && !('usage' in chunk)));

    const raw = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-svc-anything', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'my-echo', stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    assert.match(raw.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.match(await raw.text(), /data: \[DONE\]\n\n$/);
  });

  it('streams the usage chunk for stream_options.include_usage, and text completions too', async () => {
    const client = new Client({ baseUrl, apiKey: 'sk-svc-anything' });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of client.inference.streamChatCompletion({ model: 'my-echo', stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Hello' }] })) {
      chunks.push(chunk);
    }
    assert.deepEqual(chunks.at(-1)?.choices, []);
    assert.equal(chunks.at(-1)?.usage?.total_tokens, 2);
    assert.ok(chunks.slice(0, -1).every((chunk) => chunk.usage === null));
    let text = '';
    for await (const chunk of client.inference.streamCompletion({ model: 'my-echo', prompt: 'Once' })) text += chunk.choices[0]?.text ?? '';
    assert.equal(text, 'Once upon a time');
  });

  it('answers a non-stream request with the JSON example still', async () => {
    const client = new Client({ baseUrl, apiKey: 'sk-svc-anything' });
    assert.equal((await client.inference.chatCompletion({ model: 'my-echo', messages: [{ role: 'user', content: 'Hello' }] })).choices[0]?.message.content, 'Hello');
  });

  it('makes an SDK stream that gets a plain JSON answer throw an SvcError, not end empty', async () => {
    server.use(...createHandlers({ baseUrl, overrides: { createChatCompletion: () => HttpResponse.json({ id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [] }) } }));
    const client = new Client({ baseUrl, apiKey: 'sk-svc-anything' });
    const received: unknown[] = [];
    const error = await (async () => {
      for await (const chunk of client.inference.streamChatCompletion({ model: 'my-echo', messages: [{ role: 'user', content: 'Hello' }] })) received.push(chunk);
    })().then(
      () => assert.fail('expected the stream to throw'),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof APIError);
    assert.ok(error instanceof SvcError);
    assert.match(error.message, /application\/json instead of text\/event-stream/);
    assert.deepEqual(received, []);
  });

  it('answers the audit export as JSON Lines for format=jsonl, read by exportRecords()', async () => {
    const client = new Client({ baseUrl, apiKey: 'sk-svc-anything' });
    const records: AuditRecord[] = [];
    for await (const record of client.audit.exportRecords({ time_from: 'now-1d' })) records.push(record);
    const search = operationExamples.find((operation) => operation.operationId === 'searchAudit')?.example as { hits: AuditRecord[] };
    assert.ok(search.hits.length >= 1);
    assert.deepEqual(records, search.hits);
    const csv = await new Response(await client.audit.export('csv')).text();
    assert.match(csv, /^id,timestamp,event_type,/);
  });

  it('makes exportRecords() throw an SvcError, not a SyntaxError, when the export is not JSON Lines', async () => {
    server.use(...createHandlers({ baseUrl, overrides: { exportAudit: () => new HttpResponse('id,timestamp\n1,2\n', { headers: { 'content-type': 'text/csv' } }) } }));
    const client = new Client({ baseUrl, apiKey: 'sk-svc-anything' });
    const error = await (async () => {
      for await (const record of client.audit.exportRecords()) void record;
    })().then(
      () => assert.fail('expected the export to throw'),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof SvcError, String(error));
    assert.ok(!(error instanceof SyntaxError));
  });

  it('refuses an override for an operation the contract does not have', () => {
    assert.throws(() => createHandlers({ baseUrl, overrides: { noSuchOperation: () => undefined } as never }), SvcError);
  });
});

describe('a Client created before server.listen()', () => {
  it('is served by the mock (the Client looks fetch up per call)', async () => {
    const client = new Client({ baseUrl, apiKey: 'sk-svc-anything', maxRetries: 0 });
    const server = setupServer(...createHandlers({ baseUrl }));
    server.listen({ onUnhandledRequest: 'error' });
    try {
      assert.equal((await client.auth.me()).username, 'admin');
    } finally {
      server.close();
    }
  });
});

describe('createHandlers without a baseUrl', () => {
  it('uses SVC_ENDPOINT, as the Client does, and needs one outside a browser', async () => {
    const saved = process.env['SVC_ENDPOINT'];
    try {
      delete process.env['SVC_ENDPOINT'];
      assert.throws(() => createHandlers(), /needs a baseUrl/);
      process.env['SVC_ENDPOINT'] = 'http://from-environment.test/';
      const server = setupServer(...createHandlers());
      server.listen({ onUnhandledRequest: 'error' });
      try {
        assert.equal((await new Client({ apiKey: 'sk-svc-anything' }).auth.me()).username, 'admin');
      } finally {
        server.close();
      }
    } finally {
      if (saved === undefined) delete process.env['SVC_ENDPOINT'];
      else process.env['SVC_ENDPOINT'] = saved;
    }
  });
});
