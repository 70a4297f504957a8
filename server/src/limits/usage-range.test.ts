import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { usageRange } from './usage-range.js';

const NOW = Date.UTC(2026, 10, 24, 10, 30);
const H = 3_600_000;

describe('usage report range', () => {
  it('defaults to the last day (hourly) or week (daily) before now, rounded out to whole hours', () => {
    assert.deepEqual(usageRange(undefined, undefined, 'hour', NOW), { start: Date.UTC(2026, 10, 23, 10), end: Date.UTC(2026, 10, 24, 11) });
    assert.deepEqual(usageRange(undefined, undefined, 'day', NOW), { start: Date.UTC(2026, 10, 17, 10), end: Date.UTC(2026, 10, 24, 11) });
    assert.deepEqual(usageRange(NOW - H, NOW, 'hour', NOW), { start: Date.UTC(2026, 10, 24, 9), end: Date.UTC(2026, 10, 24, 11) });
  });

  it('refuses a start not before the end, and ranges longer than the interval allows', () => {
    assert.deepEqual(usageRange(NOW, NOW, 'hour', NOW), { param: 'start', message: 'start must be before end' });
    assert.equal('message' in usageRange(NOW - 32 * 24 * H, NOW, 'hour', NOW), true);
    assert.equal('start' in usageRange(NOW - 300 * 24 * H, NOW, 'day', NOW), true);
    assert.equal('message' in usageRange(NOW - 367 * 24 * H, NOW, 'day', NOW), true);
  });
});
