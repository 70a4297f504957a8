import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'vitest';
import { secretFingerprint } from './secret-fingerprint.js';

describe('secretFingerprint', () => {
  const secret = randomBytes(32).toString('hex');

  it('Should be the same for the same secret and name, on every host', () => {
    assert.equal(secretFingerprint(secret, 'jwt_signing'), secretFingerprint(`${secret}`, 'jwt_signing'));
    assert.match(secretFingerprint(secret, 'jwt_signing'), /^hmac-sha256-v1:[0-9a-f]{64}$/);
  });

  it('Should differ between secrets, and between the names one secret is kept under', () => {
    assert.notEqual(secretFingerprint(secret, 'jwt_signing'), secretFingerprint(randomBytes(32).toString('hex'), 'jwt_signing'));
    assert.notEqual(secretFingerprint(secret, 'jwt_signing'), secretFingerprint(secret, 'encryption'));
  });

  it('Should reveal nothing usable: neither the secret nor a plain hash of it', () => {
    const fingerprint = secretFingerprint(secret, 'encryption');
    assert.ok(!fingerprint.includes(secret));
    for (const algorithm of ['sha256', 'sha512', 'sha1', 'md5']) {
      const plain = createHash(algorithm).update(secret).digest('hex');
      assert.ok(!fingerprint.includes(plain), `a plain ${algorithm} of the secret`);
    }
  });
});
