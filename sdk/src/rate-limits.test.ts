import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { parseDuration, readRateLimits } from './rate-limits.js';

describe('rate-limit headers', () => {
  it('reads Go durations as OpenAI and svc write them', () => {
    assert.equal(parseDuration('20ms'), 20);
    assert.equal(parseDuration('1s'), 1000);
    assert.equal(parseDuration('1.5s'), 1500);
    assert.equal(parseDuration('6m0s'), 360_000);
    assert.equal(parseDuration('1h0m0s'), 3_600_000);
    assert.equal(parseDuration('0s'), 0);
    assert.equal(parseDuration('0'), 0);
    assert.equal(parseDuration(''), undefined);
    assert.equal(parseDuration('soon'), undefined);
    assert.equal(parseDuration('5'), undefined);
  });

  it('reads each dimension that is fully reported, and leaves out the others', () => {
    const headers = new Headers({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-reset-requests': '1s',
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '900',
    });
    assert.deepEqual(readRateLimits(headers), { requests: { limit: 60, remaining: 59, resetMs: 1000 } });
    assert.deepEqual(readRateLimits(new Headers()), {});
  });
});
