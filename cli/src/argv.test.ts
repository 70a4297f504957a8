import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandShortApiKeyFlag } from './argv.js';

describe('expandShortApiKeyFlag', () => {
  it('rewrites -ak KEY and -ak=KEY to --api-key', () => {
    assert.deepEqual(expandShortApiKeyFlag(['whoami', '-ak', 'sk-x']), ['whoami', '--api-key', 'sk-x']);
    assert.deepEqual(expandShortApiKeyFlag(['whoami', '-ak=sk-x']), ['whoami', '--api-key=sk-x']);
  });

  it('leaves a value that happens to be -ak alone, and everything after --', () => {
    assert.deepEqual(expandShortApiKeyFlag(['login', '--password', '-ak']), ['login', '--password', '-ak']);
    assert.deepEqual(expandShortApiKeyFlag(['x', '--', '-ak']), ['x', '--', '-ak']);
  });

  it('leaves other arguments unchanged', () => {
    assert.deepEqual(expandShortApiKeyFlag(['users', 'list', '-e', 'http://h', '--json']), ['users', 'list', '-e', 'http://h', '--json']);
  });
});
