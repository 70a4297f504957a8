/**
 * The contract's mock server: Prism started exactly as `npm run mock` starts it (on a free port)
 * serves the contract's examples and validates requests against the contract.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ResponseValidator } from '@svc/server';
import { repoRoot, startPrism, type PrismMock } from '../support/prism.js';

interface BundledContract {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { example?: unknown }> }> }>>;
}

describe('Prism mock of the contract', () => {
  let prism: PrismMock;
  let baseUrl: string;
  const validator = new ResponseValidator();

  beforeAll(async () => {
    prism = await startPrism();
    baseUrl = prism.baseUrl;
  });

  afterAll(() => prism?.stop());

  it('answers GET /v1/admin/setup/status with the contract example', async () => {
    const contract = JSON.parse(readFileSync(`${repoRoot}server/src/generated/contract.json`, 'utf8')) as BundledContract;
    const example = contract.paths['/v1/admin/setup/status']?.['get']?.responses['200']?.content?.['application/json']?.example;
    assert.notEqual(example, undefined, 'the contract has an example for GET /v1/admin/setup/status 200');
    const response = await fetch(`${baseUrl}/v1/admin/setup/status`);
    assert.equal(response.status, 200);
    const body: unknown = await response.json();
    assert.deepEqual(body, example);
    assert.equal(validator.check('GET', '/v1/admin/setup/status', 200, body), null);
  });

  it('refuses POST /v1/admin/setup with a body that breaks the contract', async () => {
    const invalidBodies: unknown[] = [{ username: 42 }, { username: 'admin' }, { username: 'admin', password: 'correct horse battery staple', extra: true }, []];
    for (const invalid of invalidBodies) {
      const response = await fetch(`${baseUrl}/v1/admin/setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(invalid),
      });
      const text = await response.text();
      assert.ok(response.status >= 400 && response.status < 500, `${JSON.stringify(invalid)} → ${response.status}: ${text}`);
    }
  });

  it('accepts a valid POST /v1/admin/setup with a contract-conforming answer', async () => {
    const response = await fetch(`${baseUrl}/v1/admin/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'correct horse battery staple' }),
    });
    assert.equal(response.status, 201);
    assert.equal(validator.check('POST', '/v1/admin/setup', 201, await response.json()), null);
  });
});
