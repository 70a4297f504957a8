import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { KeyEncryption } from './key-encryption.js';

const secretA = 'a'.repeat(64);
const secretB = 'b'.repeat(64);
const plaintext = 'sk-svc-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM';

describe('API key encryption (AES-256-GCM)', () => {
  it('decrypts what it encrypted, for the same row', () => {
    const encryption = new KeyEncryption(secretA);
    const blob = encryption.encrypt(plaintext, 'row-1');
    assert.deepEqual(encryption.decrypt(blob, 'row-1', encryption.keyId), { plaintext });
  });

  it('never gives the same bytes twice for one plaintext and row', () => {
    const encryption = new KeyEncryption(secretA);
    const one = encryption.encrypt(plaintext, 'row-1');
    const two = encryption.encrypt(plaintext, 'row-1');
    assert.notDeepEqual(one, two);
    assert.ok(!one.includes(Buffer.from(plaintext)), 'the plaintext must not appear in the ciphertext');
  });

  it('reports a tampered ciphertext as damaged, whichever byte changed', () => {
    const encryption = new KeyEncryption(secretA);
    const blob = encryption.encrypt(plaintext, 'row-1');
    for (const index of [0, 1, 13, Math.floor(blob.length / 2), blob.length - 1]) {
      const tampered = Buffer.from(blob);
      tampered[index] = (tampered[index] as number) ^ 0x01;
      assert.deepEqual(encryption.decrypt(tampered, 'row-1', encryption.keyId), { failure: 'damaged' }, `byte ${index}`);
    }
    assert.deepEqual(encryption.decrypt(blob.subarray(0, 20), 'row-1', encryption.keyId), { failure: 'damaged' });
  });

  it('reports a ciphertext of another encryption key as other_key', () => {
    const a = new KeyEncryption(secretA);
    const b = new KeyEncryption(secretB);
    assert.notEqual(a.keyId, b.keyId);
    const blob = a.encrypt(plaintext, 'row-1');
    assert.deepEqual(b.decrypt(blob, 'row-1', a.keyId), { failure: 'other_key' });
  });

  it('reports a ciphertext moved to another row as damaged', () => {
    const encryption = new KeyEncryption(secretA);
    const blob = encryption.encrypt(plaintext, 'row-1');
    assert.deepEqual(encryption.decrypt(blob, 'row-2', encryption.keyId), { failure: 'damaged' });
  });

  it('derives the same key id from the same secret', () => {
    assert.equal(new KeyEncryption(secretA).keyId, new KeyEncryption(secretA).keyId);
    assert.match(new KeyEncryption(secretA).keyId, /^[0-9a-f]{16}$/);
  });
});
