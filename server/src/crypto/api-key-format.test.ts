import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { API_KEY_FORMAT, withCharacterChanged } from '../testing/api-key-text.js';
import { API_KEY_PREFIX, apiKeyDigest, apiKeyDisplayPrefix, apiKeyShape, generateApiKey } from './api-key-format.js';

describe('API key format', () => {
  it('generates 10,000 distinct keys, every one in the current shape', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 10_000; i += 1) {
      const key = generateApiKey();
      assert.match(key, API_KEY_FORMAT);
      assert.equal(apiKeyShape(key), 'current');
      keys.add(key);
    }
    assert.equal(keys.size, 10_000);
  });

  it('recognises any single changed character as malformed (checksum or prefix broken)', () => {
    const key = generateApiKey();
    for (let index = 0; index < key.length; index += 1) {
      const changed = withCharacterChanged(key, index);
      assert.notEqual(changed, key);
      assert.equal(apiKeyShape(changed), 'malformed', `changed at ${index}: ${changed}`);
    }
  });

  it('recognises legacy keys: sk- followed by exactly 13 alphanumerics', () => {
    assert.equal(apiKeyShape('sk-abcDEF1234567'), 'legacy');
    assert.equal(apiKeyShape('sk-abcDEF123456'), 'malformed');
    assert.equal(apiKeyShape('sk-abcDEF12345678'), 'malformed');
    assert.equal(apiKeyShape('sk-abcDEF12345-7'), 'malformed');
  });

  it('calls anything else malformed', () => {
    for (const text of ['', 'sk-', API_KEY_PREFIX, 'Bearer sk-svc-x', `${generateApiKey()}x`, generateApiKey().slice(0, -1), 'eyJhbGciOiJIUzI1NiJ9.e30.sig']) {
      assert.equal(apiKeyShape(text), 'malformed', text);
    }
  });

  it('shows sk-svc- plus four characters as the display prefix, and 7 characters of a legacy key', () => {
    const key = generateApiKey();
    assert.equal(apiKeyDisplayPrefix(key), key.slice(0, 11));
    assert.equal(apiKeyDisplayPrefix('sk-abcDEF1234567'), 'sk-abcD');
  });

  it('looks keys up by a 32-byte SHA-256 digest that differs per key', () => {
    const key = generateApiKey();
    assert.equal(apiKeyDigest(key).length, 32);
    assert.deepEqual(apiKeyDigest(key), apiKeyDigest(key));
    assert.notDeepEqual(apiKeyDigest(key), apiKeyDigest(generateApiKey()));
  });
});
