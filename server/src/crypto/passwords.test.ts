import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { hashPassword, verifyPassword } from './passwords.js';

const password = 'a perfectly long passphrase';

describe('password hashing (argon2id)', () => {
  it('stores an argon2id PHC string with m=19456, t=2, p=1', async () => {
    const stored = await hashPassword(password);
    assert.ok(stored.startsWith('$argon2id$'), stored);
    assert.ok(stored.includes('m=19456,t=2,p=1'), stored);
    assert.ok(!stored.includes(password));
  });

  it('salts every hash: the same password hashes differently twice', async () => {
    const [one, two] = await Promise.all([hashPassword(password), hashPassword(password)]);
    assert.notEqual(one, two);
  });

  it('verifies the right password and refuses a wrong one, without truncation or case folding', async () => {
    const long = 'x'.repeat(99) + 'y';
    const [stored, storedLong] = await Promise.all([hashPassword(password), hashPassword(long)]);
    assert.equal(await verifyPassword(stored, password), true);
    assert.equal(await verifyPassword(stored, password.toUpperCase()), false);
    assert.equal(await verifyPassword(stored, `${password} `), false);
    assert.equal(await verifyPassword(storedLong, 'x'.repeat(99) + 'z'), false);
  });

  it('answers false for an absent user (null hash) and for a damaged hash, without throwing', async () => {
    assert.equal(await verifyPassword(null, password), false);
    assert.equal(await verifyPassword(null, 'svc dummy password for absent users'), false);
    assert.equal(await verifyPassword('not a phc string', password), false);
  });

  it('compares passwords in NFKC form: composed and decomposed spellings are the same password', async () => {
    const composed = 'caf\u00e9 au lait sous la pluie';
    const decomposed = 'cafe\u0301 au lait sous la pluie';
    assert.notEqual(composed, decomposed);
    const stored = await hashPassword(composed);
    assert.equal(await verifyPassword(stored, decomposed), true);
    assert.equal(await verifyPassword(stored, 'cafe au lait sous la pluie'), false);
  });
});
