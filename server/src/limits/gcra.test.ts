import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { advance, availableUnits, giveBack, lease, resetMs, waitFor, type Rate } from './gcra.js';

const perMinute = (limit: number): Rate => ({ limit, periodMs: 60_000 });
const NOW = 1_000_000;

describe('GCRA', () => {
  it('allows an idle limit a full burst, then one unit per emission interval', () => {
    const rate = perMinute(60);
    let tat: number | null = null;
    for (let index = 0; index < 60; index += 1) {
      const grant = lease(tat, NOW, 1, 1, rate);
      assert.equal(grant.granted, 1, `request ${index + 1}`);
      tat = grant.tat;
    }
    const refused = lease(tat, NOW, 1, 1, rate);
    assert.equal(refused.granted, 0);
    assert.equal(refused.retryAfterMs, 1000);
    assert.equal(lease(tat, NOW + 999, 1, 1, rate).granted, 0);
    assert.equal(lease(tat, NOW + 1000, 1, 1, rate).granted, 1);
  });

  it('weighs a request by its cost (tokens) and refuses what can never fit', () => {
    const rate = perMinute(1000);
    const first = lease(null, NOW, 700, 700, rate);
    assert.equal(first.granted, 700);
    assert.equal(availableUnits(first.tat, NOW, rate), 300);
    assert.equal(lease(first.tat, NOW, 301, 301, rate).granted, 0);
    assert.equal(waitFor(first.tat, NOW, 301, rate), 60);
    assert.equal(waitFor(null, NOW, 1001, rate), Number.POSITIVE_INFINITY);
    assert.equal(lease(null, NOW, 1001, 1001, rate).retryAfterMs, Number.POSITIVE_INFINITY);
  });

  it('leases between need and want units, never more than conform', () => {
    const rate = perMinute(100);
    assert.equal(lease(null, NOW, 1, 10, rate).granted, 10);
    const nearlyFull = advance(null, NOW, 95, rate);
    assert.equal(lease(nearlyFull, NOW, 1, 10, rate).granted, 5);
    assert.equal(lease(nearlyFull, NOW, 6, 10, rate).granted, 0);
  });

  it('reports the time until the limit is full again, and refunds never bank capacity', () => {
    const rate = perMinute(60);
    const tat = advance(null, NOW, 6, rate);
    assert.equal(resetMs(tat, NOW), 6000);
    assert.equal(resetMs(tat, NOW + 10_000), 0);
    assert.equal(giveBack(tat, NOW, 2, rate), NOW + 4000);
    assert.equal(giveBack(tat, NOW, 100, rate), NOW);
    assert.equal(availableUnits(giveBack(tat, NOW, 100, rate), NOW, rate), 60);
  });

  it('lets a charge overdraw: later requests wait for the debt', () => {
    const rate = perMinute(60);
    const overdrawn = advance(null, NOW, 90, rate);
    assert.equal(availableUnits(overdrawn, NOW, rate), 0);
    assert.equal(waitFor(overdrawn, NOW, 1, rate), 31_000);
  });
});
