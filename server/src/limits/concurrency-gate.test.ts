import assert from 'node:assert/strict';
import { describe, it, vi } from 'vitest';
import { ConcurrencyGate } from './concurrency-gate.js';
import { MemoryLimitCounterStore } from './memory-counter-store.js';

const NOW = Date.UTC(2026, 10, 24, 10);

describe('concurrency gate', () => {
  it('holds up to the limit, frees a slot on release, and lets the slots of a dead process expire', async () => {
    const store = new MemoryLimitCounterStore();
    const gate = new ConcurrencyGate(store, { slotTtlMs: 60_000 });
    assert.equal(await gate.acquire('key:a', 2, NOW), true);
    assert.equal(await gate.acquire('key:a', 2, NOW), true);
    assert.equal(await gate.acquire('key:a', 2, NOW), false);
    assert.equal(await gate.acquire('key:b', 2, NOW), true, 'another subject has its own slots');
    await gate.release('key:a');
    assert.equal(await gate.acquire('key:a', 2, NOW), true);
    const other = new ConcurrencyGate(store, { slotTtlMs: 60_000 });
    assert.equal(await other.acquire('key:a', 2, NOW + 65_999), false, 'the first process holds both');
    assert.equal(await other.acquire('key:a', 2, NOW + 66_000), true, 'its lease expired: the lifetime plus a tenth');
  });

  it('admits from a leased block without a store call while under the cap, and never lets two processes pass it together', async () => {
    const store = new MemoryLimitCounterStore();
    let storeCalls = 0;
    const counted = new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name !== 'holdSlots' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
        return (...args: unknown[]) => {
          storeCalls += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const first = new ConcurrencyGate(counted, { slotTtlMs: 60_000, slotLingerMs: 0 });
    const second = new ConcurrencyGate(counted, { slotTtlMs: 60_000, slotLingerMs: 0 });
    // A cap of 100: a cushion of 5 slots per lease.
    const admitted = await Promise.all(Array.from({ length: 10 }, () => first.acquire('user:u', 100, NOW)));
    assert.ok(admitted.every(Boolean));
    assert.ok(storeCalls <= 3, `${storeCalls} store calls for 10 requests`);
    const both = await Promise.all(Array.from({ length: 200 }, (_, index) => (index % 2 === 0 ? second : first).acquire('user:u', 100, NOW)));
    const total = 10 + both.filter(Boolean).length;
    assert.ok(total <= 100, `${total} in flight under a cap of 100`);
    assert.ok(total >= 100 - 2 * 5, `${total} in flight: at most two cushions idle`);
    const firstInFlight = 10 + both.filter((taken, index) => taken && index % 2 === 1).length;
    for (let index = 0; index < firstInFlight - 1; index += 1) await first.release('user:u');
    const held = await store.holdSlots('user:u', 'probe', 100, 0, 100, NOW, NOW + 1);
    assert.ok(held >= 100 - (both.filter((taken, index) => taken && index % 2 === 0).length + 2 * 5) - 1, `${held} free: the first process kept at most two cushions idle`);
    await store.holdSlots('user:u', 'probe', 0, 0, 100, NOW, NOW + 1);
    await first.release('user:u');
    assert.equal(await second.acquire('user:u', 100, NOW), true, 'the last release gave every slot of the first process back');
  });

  it('keeps an idle lease for the linger, then gives every slot back to the store', async () => {
    vi.useFakeTimers();
    try {
      const store = new MemoryLimitCounterStore();
      const gate = new ConcurrencyGate(store, { slotTtlMs: 60_000, slotLingerMs: 1000 });
      const other = new ConcurrencyGate(store, { slotTtlMs: 60_000 });
      for (let round = 0; round < 3; round += 1) {
        assert.equal(await gate.acquire('user:u', 40, NOW), true);
        await gate.release('user:u');
      }
      // A cap of 40: a cushion of 2; the idle process still holds 3 (one request and the cushion).
      assert.equal(await store.holdSlots('user:u', 'probe', 40, 0, 40, NOW, NOW + 1), 37);
      await store.holdSlots('user:u', 'probe', 0, 0, 40, NOW, NOW + 1);
      await vi.advanceTimersByTimeAsync(1000);
      const taken = await Promise.all(Array.from({ length: 41 }, (_, index) => other.acquire('user:u', 40, NOW)));
      assert.equal(taken.filter(Boolean).length, 40, 'the whole cap, once the first process gave its slots back');
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a slot lifetime that is not positive', () => {
    assert.throws(() => new ConcurrencyGate(new MemoryLimitCounterStore(), { slotTtlMs: 0 }), /slotTtlMs/);
  });
});
