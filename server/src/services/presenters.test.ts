import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { isoTime } from './presenters.js';

describe('isoTime', () => {
  it('formats epoch milliseconds as ISO 8601 UTC, the same again from its memory of recent times', () => {
    assert.equal(isoTime(0), '1970-01-01T00:00:00.000Z');
    assert.equal(isoTime(1_700_000_000_123), '2023-11-14T22:13:20.123Z');
    assert.equal(isoTime(1_700_000_000_123), '2023-11-14T22:13:20.123Z');
  });

  it('stays right past the number of times it remembers', () => {
    for (let i = 0; i < 10_000; i += 1) assert.equal(isoTime(i * 1000), new Date(i * 1000).toISOString());
    assert.equal(isoTime(0), '1970-01-01T00:00:00.000Z');
  });

  it('refuses a time that is not one, as Date does', () => {
    assert.throws(() => isoTime(Number.NaN), RangeError);
    assert.throws(() => isoTime(Number.NaN), RangeError);
  });
});
