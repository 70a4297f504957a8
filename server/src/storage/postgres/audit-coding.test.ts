import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { newAuditRecord } from '../contract/fixtures.js';
import { latencyMicroseconds, tupleKey, tupleMember, tupleMembers } from './audit-coding.js';

describe('PostgreSQL coded audit records', () => {
  it('stores a latency as whole microseconds only when it reads back as the same number', () => {
    assert.equal(latencyMicroseconds(12.345), 12_345);
    assert.equal(latencyMicroseconds(0), 0);
    assert.equal(latencyMicroseconds(-0.5), -500);
    assert.equal(latencyMicroseconds(0.1 + 0.2), null, '0.30000000000000004 is not a whole number of microseconds');
    assert.equal(latencyMicroseconds(1e-7), null);
    assert.equal(latencyMicroseconds(3e9), null, 'beyond a 32-bit integer of microseconds');
    assert.equal(latencyMicroseconds(-0), null, '-0 would read back as 0');
    assert.equal(latencyMicroseconds(null), null);
    for (const latency of [12.345, 0.001, 1999.999, 123.456]) assert.ok(Object.is((latencyMicroseconds(latency) ?? Number.NaN) / 1000, latency), String(latency));
  });

  it('keys a tuple by its members in order; a group with every field null has no tuple', () => {
    const record = newAuditRecord({ username: 'alice', user_id: null, status: 'denied', http_status: 403 });
    assert.deepEqual(tupleMembers(record, 'caller'), [null, 'alice']);
    assert.equal(tupleKey(record, 'caller'), '[null,"alice"]');
    assert.equal(tupleKey(record, 'api_key'), null);
    assert.equal(tupleMembers(record, 'shape').at(-1), '403', 'the HTTP status, in decimal');
    assert.notEqual(tupleKey(record, 'caller'), tupleKey({ ...record, user_id: 'alice', username: null }, 'caller'));
    assert.deepEqual(tupleMember('status'), { column: 'shape', position: 12 });
    assert.deepEqual(tupleMember('api_key_name'), { column: 'api_key', position: 2 });
  });
});
