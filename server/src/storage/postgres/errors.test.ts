import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { StorageUnavailableError } from '../port/errors.js';
import { errorCode, isNotReadyYet, isRetryable, isUnavailable, toStorageError } from './errors.js';

const withCode = (code: string, message = 'boom'): Error => Object.assign(new Error(message), { code });

describe('PostgreSQL error mapping', () => {
  it('wraps what means "the database cannot serve now" in StorageUnavailableError, keeping the cause', () => {
    for (const code of ['08006', '08001', '28P01', '53300', '57P01', '57P03', '57014', '55P03', '25006', '40001', '40P01', '3D000', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT']) {
      const original = withCode(code);
      const mapped = toStorageError(original);
      assert.ok(mapped instanceof StorageUnavailableError, code);
      assert.equal(mapped.cause, original);
      assert.equal(errorCode(mapped), code);
    }
    for (const message of ['Connection terminated unexpectedly', 'timeout exceeded when trying to connect', 'timeout expired', 'Client has encountered a connection error and is not queryable']) {
      assert.ok(isUnavailable(new Error(message)), message);
    }
  });

  it('leaves programming errors and constraint violations as they are (a 500, not a 503)', () => {
    for (const code of ['23505', '23503', '42601', '42P01', '22021']) {
      const original = withCode(code);
      assert.equal(toStorageError(original), original, code);
    }
    const plain = new Error('a bug');
    assert.equal(toStorageError(plain), plain);
  });

  it('tells "not ready yet" (starting up, a lookup failing for now, no answer in time) from "no"', () => {
    for (const error of [withCode('57P03'), withCode('EAI_AGAIN'), new Error('timeout expired'), toStorageError(withCode('57P03')), new StorageUnavailableError('x', { cause: new Error('timeout expired') })]) {
      assert.ok(isNotReadyYet(error), String(error));
    }
    for (const error of [withCode('ECONNREFUSED'), withCode('28P01'), withCode('3D000'), withCode('53300'), new Error('a bug'), new Error('the timeout expired in a query of mine')]) {
      assert.ok(!isNotReadyYet(error), String(error));
    }
  });

  it('retries only serialization failures and deadlocks, also when already wrapped', () => {
    assert.ok(isRetryable(withCode('40001')));
    assert.ok(isRetryable(toStorageError(withCode('40P01'))));
    assert.ok(!isRetryable(withCode('55P03')));
    assert.ok(!isRetryable(new Error('no code')));
  });
});
