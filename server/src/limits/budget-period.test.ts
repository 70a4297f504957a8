import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { periodBounds } from './budget-period.js';

describe('budget periods', () => {
  it('a day runs from midnight UTC to the next midnight, whatever the time inside it', () => {
    const bounds = { start: Date.UTC(2026, 10, 24), end: Date.UTC(2026, 10, 25) };
    assert.deepEqual(periodBounds(Date.UTC(2026, 10, 24), 'day'), bounds);
    assert.deepEqual(periodBounds(Date.UTC(2026, 10, 24, 23, 59, 59, 999), 'day'), bounds);
    assert.deepEqual(periodBounds(Date.UTC(2026, 10, 25), 'day').start, bounds.end);
  });

  it('a month runs from the first at 00:00 UTC to the next first, across year ends and leap Februaries', () => {
    assert.deepEqual(periodBounds(Date.UTC(2026, 11, 31, 23, 0), 'month'), { start: Date.UTC(2026, 11, 1), end: Date.UTC(2027, 0, 1) });
    assert.deepEqual(periodBounds(Date.UTC(2028, 1, 29, 12), 'month'), { start: Date.UTC(2028, 1, 1), end: Date.UTC(2028, 2, 1) });
    assert.equal(periodBounds(Date.UTC(2028, 2, 1), 'month').start, Date.UTC(2028, 2, 1));
  });
});
