import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { exactLeases, resolveLeaseOptions } from './lease-options.js';

describe('lease options', () => {
  it('fills in the defaults and keeps what is given', () => {
    assert.deepEqual(resolveLeaseOptions(), { rateLeaseFraction: 0.05, rateLeaseTtlMs: 1000, budgetLeaseFraction: 0.001 });
    assert.deepEqual(resolveLeaseOptions({ rateLeaseFraction: 0 }).rateLeaseFraction, 0);
    assert.deepEqual(resolveLeaseOptions(exactLeases), exactLeases);
  });

  it('refuses fractions outside 0..1 and a negative lifetime', () => {
    assert.throws(() => resolveLeaseOptions({ rateLeaseFraction: 1.5 }), /rateLeaseFraction/);
    assert.throws(() => resolveLeaseOptions({ budgetLeaseFraction: -0.1 }), /budgetLeaseFraction/);
    assert.throws(() => resolveLeaseOptions({ rateLeaseFraction: Number.NaN }), /rateLeaseFraction/);
    assert.throws(() => resolveLeaseOptions({ rateLeaseTtlMs: -1 }), /rateLeaseTtlMs/);
  });
});
