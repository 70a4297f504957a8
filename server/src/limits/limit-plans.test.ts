import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { LimitPlans } from './limit-plans.js';
import { limitsFromWire, noLimits } from './usage-limits.js';

describe('limit plans', () => {
  it('compiles a scope once per limits object: the key, then its per-model rates, in order', () => {
    const plans = new LimitPlans();
    const limits = limitsFromWire({ requests_per_minute: 60, token_budget: { tokens: 1000, period: 'day' }, max_concurrent_requests: 4, models: [{ model: 'llama-3', tokens_per_minute: 500 }] });
    const scope = { kind: 'key' as const, id: 'k1', limits };
    const plan = plans.of(scope);
    assert.equal(plans.of({ ...scope }), plan, 'the same limits object and id: the same plan');
    assert.deepEqual(
      plan.rateChecks('llama-3').map((check) => [check.subject, check.rate.limit, check.dimension]),
      [
        ['key:k1:rpm', 60, 'requests'],
        ['key:k1:model:llama-3:tpm', 500, 'tokens'],
      ],
    );
    assert.deepEqual(plan.rateChecks('other').map((check) => check.subject), ['key:k1:rpm']);
    assert.deepEqual(plan.budget, { subject: 'key:k1:budget:day', budget: { tokens: 1000, period: 'day' } });
    assert.deepEqual(plan.concurrency, { subject: 'key:k1:concurrent', limit: 4 });
    assert.match(plan.rateChecks('llama-3')[1]?.describe ?? '', /tokens per minute on model llama-3 of API key k1/);
  });

  it('compiles anew for new limits (a changed record), and keeps keys and users apart', () => {
    const plans = new LimitPlans();
    const before = plans.of({ kind: 'user', id: 'u1', limits: limitsFromWire({ requests_per_minute: 10 }) });
    const after = plans.of({ kind: 'user', id: 'u1', limits: limitsFromWire({ requests_per_minute: 20 }) });
    assert.notEqual(before, after);
    assert.equal(after.rateChecks('m')[0]?.rate.limit, 20);
    const shared = limitsFromWire({ requests_per_minute: 5 });
    assert.equal(plans.of({ kind: 'key', id: 'x', limits: shared }).rateChecks('m')[0]?.subject, 'key:x:rpm');
    assert.equal(plans.of({ kind: 'user', id: 'x', limits: shared }).rateChecks('m')[0]?.subject, 'user:x:rpm');
    assert.deepEqual(plans.rateChecks([{ kind: 'key', id: 'x', limits: shared }, { kind: 'user', id: 'y', limits: noLimits }], 'm').length, 1);
  });

  it("joins a key's and its user's checks once per pair and model, in order, and anew when either's limits change", () => {
    const plans = new LimitPlans();
    const keyLimits = limitsFromWire({ requests_per_minute: 5, models: [{ model: 'm', tokens_per_minute: 50 }] });
    const userLimits = limitsFromWire({ tokens_per_minute: 100 });
    const scopes = [{ kind: 'key' as const, id: 'k', limits: keyLimits }, { kind: 'user' as const, id: 'u', limits: userLimits }];
    const joined = plans.rateChecks(scopes, 'm');
    assert.deepEqual(joined.map((check) => check.subject), ['key:k:rpm', 'key:k:model:m:tpm', 'user:u:tpm']);
    assert.equal(plans.rateChecks(scopes, 'm'), joined, 'the same array on the next call');
    assert.deepEqual(plans.rateChecks(scopes, 'other').map((check) => check.subject), ['key:k:rpm', 'user:u:tpm']);
    const changed = plans.rateChecks([scopes[0] as (typeof scopes)[0], { kind: 'user', id: 'u', limits: limitsFromWire({ tokens_per_minute: 7 }) }], 'm');
    assert.deepEqual(changed.map((check) => check.rate.limit), [5, 50, 7]);
  });
});
