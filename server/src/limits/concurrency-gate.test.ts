import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { ConcurrencyGate } from './concurrency-gate.js';
import { MemoryLimitCounterStore } from './memory-counter-store.js';

const NOW = Date.UTC(2026, 10, 24, 10);

describe('concurrency gate', () => {
  it('holds up to the limit, frees a slot on release, and lets a slot of a dead process expire', async () => {
    const gate = new ConcurrencyGate(new MemoryLimitCounterStore(), { slotTtlMs: 60_000 });
    assert.equal(await gate.acquire('key:a', 'r1', 2, NOW), true);
    assert.equal(await gate.acquire('key:a', 'r2', 2, NOW), true);
    assert.equal(await gate.acquire('key:a', 'r3', 2, NOW), false);
    assert.equal(await gate.acquire('key:b', 'r3', 2, NOW), true, 'another subject has its own slots');
    await gate.release('key:a', 'r1');
    assert.equal(await gate.acquire('key:a', 'r3', 2, NOW), true);
    assert.equal(await gate.acquire('key:a', 'r4', 2, NOW + 59_999), false);
    assert.equal(await gate.acquire('key:a', 'r4', 2, NOW + 60_000), true, 'r2 and r3 expired');
  });

  it('refuses a slot lifetime that is not positive', () => {
    assert.throws(() => new ConcurrencyGate(new MemoryLimitCounterStore(), { slotTtlMs: 0 }), /slotTtlMs/);
  });
});
