import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { formatDuration, isTighter, rateLimitHeaders, RateLimitHeaderWriter, retryAfterHeaders, type LimitState } from './rate-limit-headers.js';

describe('rate-limit headers', () => {
  it('write resets as OpenAI does (Go durations)', () => {
    assert.equal(formatDuration(0), '0s');
    assert.equal(formatDuration(20), '20ms');
    assert.equal(formatDuration(19.2), '20ms');
    assert.equal(formatDuration(1000), '1s');
    assert.equal(formatDuration(1500), '1.5s');
    assert.equal(formatDuration(1234), '1.234s');
    assert.equal(formatDuration(360_000), '6m0s');
    assert.equal(formatDuration(90_500), '1m30.5s');
    assert.equal(formatDuration(3_600_000), '1h0m0s');
    assert.equal(formatDuration(-5), '0s');
    for (const [ms, text] of [[1005, '1.005s'], [1050, '1.05s'], [2001, '2.001s'], [2010, '2.01s'], [59_999, '59.999s'], [60_001, '1m0.001s'], [3_601_230, '1h0m1.23s']] as const) {
      assert.equal(formatDuration(ms), text, `${ms} ms`);
    }
    // Every millisecond of a minute, against the decimal reading of the text.
    for (let ms = 1000; ms < 60_000; ms += 1) {
      const text = formatDuration(ms);
      assert.equal(Math.round(Number.parseFloat(text) * 1000), ms, `${ms} ms`);
      assert.doesNotMatch(text, /\.\d*0s$/, `${text}: no trailing zero`);
    }
  });

  it('name limit, remaining and reset per dimension, and leave out a dimension without a limit', () => {
    assert.deepEqual(rateLimitHeaders({ requests: { limit: 60, remaining: 59, resetMs: 1000 }, tokens: null }), {
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-reset-requests': '1s',
    });
    assert.deepEqual(rateLimitHeaders({ requests: null, tokens: { limit: 1000, remaining: -3, resetMs: 20 } }), {
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '0',
      'x-ratelimit-reset-tokens': '20ms',
    });
    assert.deepEqual(rateLimitHeaders({ requests: null, tokens: null }), {});
  });

  it('report the tightest of several limits', () => {
    const key = { limit: 60, remaining: 10, resetMs: 50_000 };
    const user = { limit: 1000, remaining: 5, resetMs: 1000 };
    assert.equal(isTighter(user, key), true, 'fewer remaining');
    assert.equal(isTighter(key, user), false);
    assert.equal(isTighter({ ...key, remaining: 5 }, user), true, 'on a tie, the later reset');
    assert.equal(isTighter(user, { ...key, remaining: 5 }), false);
    assert.equal(isTighter({ ...user }, user), false, 'on a full tie, the one found first stays');
  });

  it('a writer writes, call after call, exactly what rateLimitHeaders writes, values repeated or changed, one dimension or both', () => {
    const writer = new RateLimitHeaderWriter();
    const states: [LimitState | null, LimitState | null][] = [
      [{ limit: 60, remaining: 59, resetMs: 1000 }, { limit: 1000, remaining: 990.5, resetMs: 2999.2 }],
      [{ limit: 60, remaining: 59, resetMs: 1000 }, { limit: 1000, remaining: 990.5, resetMs: 2999.2 }],
      [{ limit: 60, remaining: 58, resetMs: 999.6 }, { limit: 1000, remaining: 980, resetMs: 2999.9 }],
      [{ limit: 120, remaining: -1, resetMs: 61_000 }, { limit: 1000, remaining: 980, resetMs: 0 }],
      [null, { limit: 1000, remaining: 970, resetMs: 20 }],
      [{ limit: 120, remaining: 100, resetMs: 5 }, null],
      [{ limit: 60, remaining: 58, resetMs: 999.6 }, { limit: 1000, remaining: 980, resetMs: 2999.9 }],
    ];
    for (const [requests, tokens] of states) {
      const written = writer.headers(requests, tokens);
      assert.deepEqual(written, rateLimitHeaders({ requests, tokens }));
      assert.deepEqual(Object.keys(written), Object.keys(rateLimitHeaders({ requests, tokens })));
    }
    assert.notEqual(writer.headers(states[0]?.[0] ?? null, null), writer.headers(states[0]?.[0] ?? null, null), 'a new object per answer');
  });

  it('give a retry time in whole seconds (at least one) and in milliseconds', () => {
    assert.deepEqual(retryAfterHeaders(1200), { 'retry-after': '2', 'retry-after-ms': '1200' });
    assert.deepEqual(retryAfterHeaders(0), { 'retry-after': '1', 'retry-after-ms': '0' });
  });
});
