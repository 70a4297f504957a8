/**
 * The SDK against Prism, the contract's mock server (`npm run mock`, here on a free port): what an
 * app's integration tests see when they point a `Client` at the mock. Every answer the SDK receives
 * is checked against the contract by the server's `ResponseValidator`.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { APIError, AuthenticationError, Client, MemoryTokenStore } from '@svc/sdk';
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

  it('refuses a call without credentials with AuthenticationError missing_credentials', async () => {
    const client = new Client({ baseUrl: prism.baseUrl, maxRetries: 0 });
    const error = await client.keys.list().catch((caught: unknown) => caught);
    assert.ok(error instanceof AuthenticationError);
    assert.equal(error.code, 'missing_credentials');
  });

  it('answers a failed login invalid_credentials and a failed refresh invalid_refresh_token', async () => {
    const refused = (operation: Promise<unknown>) => operation.then(() => assert.fail('expected a 401'), (error: unknown) => error);
    const headers = { Prefer: 'code=401' };
    const login = await refused(new Client({ baseUrl: prism.baseUrl, headers, maxRetries: 0 }).login('admin', 'wrong password, long enough'));
    assert.ok(login instanceof AuthenticationError);
    assert.equal(login.code, 'invalid_credentials');
  });

  it('gives each operation a 404 example that names its own code', async () => {
    const client = new Client({ baseUrl: prism.baseUrl, apiKey: 'sk-test', headers: { Prefer: 'code=404' }, maxRetries: 0, fetch: contractCheckingFetch });
    const codeOf = (operation: Promise<unknown>) => operation.then(() => assert.fail('expected a 404'), (error: unknown) => (error instanceof APIError ? error.code : error));
    assert.equal(await codeOf(client.users.get('user-1')), 'user_not_found');
    assert.equal(await codeOf(client.keys.get('key-1')), 'api_key_not_found');
    assert.equal(await codeOf(client.models.get('my-echo')), 'model_not_found');
    assert.equal(await codeOf(client.inference.chatCompletion({ model: 'my-echo', messages: [{ role: 'user', content: 'hi' }] })), 'model_not_found');
    assert.equal(await codeOf(client.modelRegistrations.unregister('LLM', 'my-family')), 'model_family_not_found');
    assert.equal(await codeOf(client.cache.delete('qwen-chat')), 'entry_not_found');
  });
});
