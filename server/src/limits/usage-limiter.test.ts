import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { ManualClock } from '../runtime/clock.js';
import { exactLeases } from './lease-options.js';
import { MemoryLimitCounterStore } from './memory-counter-store.js';
import { UsageLimiter, type Admission, type LimitScope } from './usage-limiter.js';
import { limitsFromWire } from './usage-limits.js';

const START = Date.UTC(2026, 10, 24, 10);
const key = (wire: Parameters<typeof limitsFromWire>[0]): LimitScope => ({ kind: 'key', id: 'k1', limits: limitsFromWire(wire) });
const user = (wire: Parameters<typeof limitsFromWire>[0]): LimitScope => ({ kind: 'user', id: 'u1', limits: limitsFromWire(wire) });

function setup() {
  const clock = new ManualClock(START);
  const limiter = new UsageLimiter(new MemoryLimitCounterStore(), clock, exactLeases);
  let next = 0;
  const admit = (scopes: LimitScope[], estimatedTokens = 10, model = 'llama-3'): Promise<Admission> => {
    next += 1;
    return limiter.admit({ model, scopes, estimatedTokens });
  };
  return { clock, limiter, admit };
}

const admitted = (admission: Admission) => {
  assert.ok(admission.admitted, admission.admitted ? '' : admission.message);
  return admission;
};

describe('usage limiter', () => {
  it('admits up to the requests per minute with OpenAI headers, then refuses with rate_limit_exceeded and a retry time', async () => {
    const { admit } = setup();
    const scopes = [key({ requests_per_minute: 2, tokens_per_minute: 100 })];
    const first = admitted(await admit(scopes, 30));
    assert.deepEqual(first.headers, {
      'x-ratelimit-limit-requests': '2',
      'x-ratelimit-remaining-requests': '1',
      'x-ratelimit-reset-requests': '30s',
      'x-ratelimit-limit-tokens': '100',
      'x-ratelimit-remaining-tokens': '70',
      'x-ratelimit-reset-tokens': '18s',
    });
    admitted(await admit(scopes, 30));
    const refused = await admit(scopes, 30);
    assert.equal(refused.admitted, false);
    if (refused.admitted) return;
    assert.equal(refused.code, 'rate_limit_exceeded');
    assert.equal(refused.retryAfterMs, 30_000);
    assert.equal(refused.headers['retry-after'], '30');
    assert.equal(refused.headers['retry-after-ms'], '30000');
    assert.equal(refused.headers['x-ratelimit-remaining-requests'], '0');
    assert.match(refused.message, /requests per minute of API key k1 is 2/);
  });

  it('takes nothing from any limit when one of them refuses', async () => {
    const { admit, limiter } = setup();
    const scopes = [key({ requests_per_minute: 10 }), user({ tokens_per_minute: 50 })];
    admitted(await admit(scopes, 40));
    const refused = await admit(scopes, 40);
    assert.equal(refused.admitted, false);
    assert.equal(limiter.headers(scopes, 'llama-3')['x-ratelimit-remaining-requests'], '9', 'the refused call gave its request back');
  });

  it('applies a per-model limit only to that model', async () => {
    const { admit } = setup();
    const scopes = [key({ models: [{ model: 'big', requests_per_minute: 1 }] })];
    admitted(await admit(scopes, 1, 'big'));
    assert.equal((await admit(scopes, 1, 'big')).admitted, false);
    admitted(await admit(scopes, 1, 'small'));
    admitted(await admit(scopes, 1, 'small'));
  });

  it('settles the real token count: a refund frees tokens, an overrun makes later calls wait', async () => {
    const { admit, limiter } = setup();
    const scopes = [key({ tokens_per_minute: 100 })];
    const call = admitted(await admit(scopes, 80));
    const after = await limiter.settle(call.ticket, 20);
    assert.equal(after['x-ratelimit-remaining-tokens'], '80');
    const big = admitted(await admit(scopes, 50));
    await limiter.settle(big.ticket, 150);
    const refused = await admit(scopes, 1);
    assert.equal(refused.admitted, false);
  });

  it('admits a call estimated above the whole token limit only when the limit is full', async () => {
    const { admit, clock, limiter } = setup();
    const scopes = [key({ tokens_per_minute: 100 })];
    const huge = admitted(await admit(scopes, 1000));
    await limiter.settle(huge.ticket, 1000);
    assert.equal((await admit(scopes, 1000)).admitted, false);
    clock.advance(600_000);
    admitted(await admit(scopes, 1000));
  });

  it('caps requests in flight, freeing a slot when a call settles', async () => {
    const { admit, limiter } = setup();
    const scopes = [key({ max_concurrent_requests: 2 })];
    const one = admitted(await admit(scopes));
    admitted(await admit(scopes));
    const third = await admit(scopes);
    assert.equal(third.admitted, false);
    if (!third.admitted) assert.equal(third.headers['retry-after'], '1');
    await limiter.settle(one.ticket, 10);
    admitted(await admit(scopes));
  });

  it('refuses a call beyond the budget with budget_exceeded until the period ends, counting key and user budgets apart', async () => {
    const { admit, clock, limiter } = setup();
    clock.set(Date.UTC(2026, 10, 24, 23, 0));
    const scopes = [key({ token_budget: { tokens: 100, period: 'day' } }), user({ token_budget: { tokens: 1000, period: 'month' } })];
    const call = admitted(await admit(scopes, 100));
    await limiter.settle(call.ticket, 100);
    const refused = await admit(scopes, 1);
    assert.equal(refused.admitted, false);
    if (refused.admitted) return;
    assert.equal(refused.code, 'budget_exceeded');
    assert.equal(refused.retryAfterMs, 3_600_000);
    assert.match(refused.message, /100 tokens per day/);
    clock.set(Date.UTC(2026, 10, 25));
    admitted(await admit(scopes, 1));
  });

  it('answers no rate-limit headers when no per-minute limit applies', async () => {
    const { admit } = setup();
    assert.deepEqual(admitted(await admit([key({ token_budget: { tokens: 5, period: 'day' } })], 1)).headers, {});
    assert.deepEqual(admitted(await admit([], 1)).headers, {});
  });
});
