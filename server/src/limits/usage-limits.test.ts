import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { isUnlimited, limitsAboveOwner, limitsFromWire, limitsToWire, loadLimits, noLimits, storedLimits } from './usage-limits.js';

describe('usage limits', () => {
  it('reads the wire form (absent and null both meaning no limit) and writes it back with every field', () => {
    const limits = limitsFromWire({ requests_per_minute: 60, token_budget: { tokens: 5_000_000, period: 'month' }, models: [{ model: 'llama-3', tokens_per_minute: 1000 }] });
    assert.deepEqual(limitsToWire(limits), {
      requests_per_minute: 60,
      tokens_per_minute: null,
      max_concurrent_requests: null,
      token_budget: { tokens: 5_000_000, period: 'month' },
      models: [{ model: 'llama-3', requests_per_minute: null, tokens_per_minute: 1000 }],
    });
    assert.ok(isUnlimited(limitsFromWire({ requests_per_minute: null })));
    assert.ok(isUnlimited(limitsFromWire(undefined)));
  });

  it('keeps the last entry of a model named twice', () => {
    const limits = limitsFromWire({ models: [{ model: 'a', requests_per_minute: 1 }, { model: 'a', requests_per_minute: 2 }] });
    assert.deepEqual(limits.models, [{ model: 'a', requestsPerMinute: 2, tokensPerMinute: null }]);
  });

  it('stores nothing for no limits and round-trips stored JSON; unreadable JSON reads as no limits', () => {
    assert.equal(storedLimits(noLimits), null);
    const limits = limitsFromWire({ max_concurrent_requests: 4 });
    assert.deepEqual(loadLimits(storedLimits(limits)), limits);
    assert.deepEqual(loadLimits('{not json'), noLimits);
    assert.deepEqual(loadLimits(null), noLimits);
  });

  it('names every key limit above its owner, comparing only limits set on both', () => {
    const owner = limitsFromWire({ requests_per_minute: 60, tokens_per_minute: 10_000, token_budget: { tokens: 1000, period: 'month' }, models: [{ model: 'big', tokens_per_minute: 500 }] });
    assert.deepEqual(limitsAboveOwner(limitsFromWire({ requests_per_minute: 60, max_concurrent_requests: 100 }), owner), []);
    assert.deepEqual(
      limitsAboveOwner(
        limitsFromWire({
          requests_per_minute: 61,
          token_budget: { tokens: 1001, period: 'day' },
          models: [
            { model: 'big', tokens_per_minute: 501 },
            { model: 'small', requests_per_minute: 61, tokens_per_minute: 10_000 },
          ],
        }),
        owner,
      ),
      ['requests_per_minute', 'token_budget.tokens', 'models[big].tokens_per_minute', 'models[small].requests_per_minute'],
    );
    assert.deepEqual(limitsAboveOwner(limitsFromWire({ token_budget: { tokens: 9999, period: 'month' } }), limitsFromWire({ token_budget: { tokens: 10, period: 'day' } })), []);
    assert.deepEqual(limitsAboveOwner(limitsFromWire({ requests_per_minute: 1_000_000 }), noLimits), []);
  });
});
