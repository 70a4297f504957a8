/**
 * The SDK against Prism, the contract's mock server (`npm run mock`, here on a free port): what an
 * app's integration tests see when they point a `Client` at the mock. Every answer the SDK receives
 * is checked against the contract by the server's `ResponseValidator`.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { AuthenticationError, Client, MemoryTokenStore } from '@svc/sdk';
import { ResponseValidator } from '@svc/server';
import { startPrism, type PrismMock } from '../support/prism.js';

const validator = new ResponseValidator();

/** A `fetch` that checks every answer against the contract before handing it to the SDK. */
const contractCheckingFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const response = await globalThis.fetch(request);
  const text = await response.clone().text();
  const body: unknown = text === '' ? undefined : JSON.parse(text);
  const violation = validator.check(request.method, new URL(request.url).pathname, response.status, body);
  assert.equal(violation, null, `${request.method} ${request.url}: ${violation}`);
  return response;
};

describe('SDK against the Prism mock of the contract', () => {
  let prism: PrismMock;

  beforeAll(async () => {
    prism = await startPrism();
  });

  afterAll(() => prism?.stop());

  it('answers setup.status() with contract-shaped data', async () => {
    const client = new Client({ baseUrl: prism.baseUrl, fetch: contractCheckingFetch });
    const status = await client.setup.status();
    assert.equal(typeof status.needs_setup, 'boolean');
    assert.equal(typeof status.password_min_length, 'number');
  });

  it('logs in, then answers auth.me() and keys.list() with the session token', async () => {
    const store = new MemoryTokenStore();
    const client = new Client({ baseUrl: prism.baseUrl, fetch: contractCheckingFetch, tokenStore: store });
    const pair = await client.login('admin', 'correct horse battery staple');
    assert.equal(pair.token_type, 'bearer');
    assert.equal(store.get()?.accessToken, pair.access_token);
    const me = await client.auth.me();
    assert.equal(typeof me.username, 'string');
    assert.ok(Array.isArray(me.permissions));
    const keys = await client.keys.list();
    assert.ok(Array.isArray(keys) && keys.length > 0);
    assert.match(keys[0]?.key_prefix ?? '', /^sk-svc-/);
  });

  it('answers an API-key client, as documented for `npm run mock`', async () => {
    const client = new Client({ baseUrl: prism.baseUrl, apiKey: 'sk-test', fetch: contractCheckingFetch });
    assert.equal(typeof (await client.auth.me()).id, 'string');
    assert.ok(Array.isArray(await client.keys.list()));
  });

  it('refuses a call without credentials with AuthenticationError', async () => {
    const client = new Client({ baseUrl: prism.baseUrl, maxRetries: 0 });
    await assert.rejects(client.keys.list(), AuthenticationError);
  });
});
