import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import type { LimitCounter, LimitCounterStore, LimitCounterUpdate } from '../storage/port/usage.js';
import { MemoryLimitCounterStore } from './memory-counter-store.js';
import { RateLeases } from './rate-leases.js';

const NOW = Date.UTC(2026, 10, 24, 10);
const perMinute = (limit: number) => ({ limit, periodMs: 60_000 });

/** The memory store, counting the updates that reach it (the round trips a database would see). */
class CountingStore extends MemoryLimitCounterStore {
  updates = 0;
  override update<Result>(subject: string, now: number, decide: (current: LimitCounter | null) => LimitCounterUpdate<Result>): Promise<Result> {
    this.updates += 1;
    return super.update(subject, now, decide);
  }
}

describe('rate leases', () => {
  it('exact mode: one process admits the limit, then one request per emission interval, reporting remaining and reset', async () => {
    const leases = new RateLeases(new MemoryLimitCounterStore(), { rateLeaseFraction: 0, rateLeaseTtlMs: 0 });
    const rate = perMinute(3);
    const answers = [];
    for (let index = 0; index < 4; index += 1) answers.push(await leases.take('key:a:rpm', rate, 1, NOW));
    assert.deepEqual(
      answers.map((answer) => [answer.allowed, answer.remaining, answer.resetMs]),
      [
        [true, 2, 20_000],
        [true, 1, 40_000],
        [true, 0, 60_000],
        [false, 0, 60_000],
      ],
    );
    assert.equal(answers[3]?.retryAfterMs, 20_000);
    assert.equal((await leases.take('key:a:rpm', rate, 1, NOW + 19_999)).allowed, false);
    assert.equal((await leases.take('key:a:rpm', rate, 1, NOW + 20_000)).allowed, true);
  });

  it('leases blocks: a busy process reaches the store once per block, not once per request', async () => {
    const store = new CountingStore();
    const leases = new RateLeases(store, { rateLeaseFraction: 0.05, rateLeaseTtlMs: 1000 });
    const rate = perMinute(1000);
    for (let index = 0; index < 100; index += 1) assert.equal((await leases.take('key:a:rpm', rate, 1, NOW)).allowed, true);
    assert.equal(store.updates, 2, '100 requests from blocks of 50');
  });

  it('shares one lease among concurrent calls of a process instead of each leasing a block', async () => {
    const store = new CountingStore();
    const leases = new RateLeases(store, { rateLeaseFraction: 0.05, rateLeaseTtlMs: 1000 });
    const rate = perMinute(1000);
    const answers = await Promise.all(Array.from({ length: 100 }, () => leases.take('key:a:rpm', rate, 1, NOW)));
    assert.ok(answers.every((answer) => answer.allowed));
    assert.equal(store.updates, 2, '100 concurrent requests from blocks of 50');
    assert.equal(leases.status('key:a:rpm', rate, NOW).remaining, 900);
  });

  it('lets a block lapse after its lifetime: its units are not used later', async () => {
    const store = new CountingStore();
    const leases = new RateLeases(store, { rateLeaseFraction: 0.5, rateLeaseTtlMs: 1000 });
    const rate = perMinute(10);
    await leases.take('s', rate, 1, NOW);
    assert.equal(leases.status('s', rate, NOW).remaining, 9, '4 in the block, 5 left on the counter');
    await leases.take('s', rate, 1, NOW + 1001);
    assert.equal(store.updates, 2, 'the lapsed block was not used');
  });

  it('names a wait that holds when the block lapses first: the retry then takes the whole cost from the counter', async () => {
    const leases = new RateLeases(new MemoryLimitCounterStore(), { rateLeaseFraction: 0, rateLeaseTtlMs: 1000 });
    const rate = perMinute(100);
    await leases.take('tpm', rate, 50, NOW);
    await leases.giveBack('tpm', rate, 40, NOW); // 40 back in this process's block, which lapses at NOW + 1 s
    const refused = await leases.take('tpm', rate, 100, NOW);
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterMs, 30_000, 'the 50 units leased, not the 10 the block lacks');
    assert.equal((await leases.take('tpm', rate, 100, NOW + refused.retryAfterMs)).allowed, true);
  });

  it('settles: a charge beyond the block overdraws the counter, a refund returns to the block or the counter', async () => {
    const leases = new RateLeases(new MemoryLimitCounterStore(), { rateLeaseFraction: 0, rateLeaseTtlMs: 0 });
    const rate = perMinute(100);
    await leases.take('tpm', rate, 50, NOW);
    await leases.charge('tpm', rate, 80, NOW);
    assert.equal(leases.status('tpm', rate, NOW).remaining, 0);
    assert.equal((await leases.take('tpm', rate, 1, NOW)).retryAfterMs, 18_600);
    await leases.giveBack('tpm', rate, 40, NOW);
    assert.equal(leases.status('tpm', rate, NOW).remaining, 10);
  });

  it('admits from the live block without a round trip (takeLocal), and not from a lapsed or short one', async () => {
    const store = new CountingStore();
    const leases = new RateLeases(store, { rateLeaseFraction: 0.5, rateLeaseTtlMs: 1000 });
    const rate = perMinute(10);
    assert.equal(leases.takeLocal('s', 1, NOW), false, 'no block yet');
    await leases.take('s', rate, 1, NOW);
    assert.equal(leases.takeLocal('s', 5, NOW), false, 'the block holds 4');
    assert.equal(leases.takeLocal('s', 4, NOW + 1000), true);
    assert.equal(leases.takeLocal('s', 1, NOW + 1000), false, 'spent');
    assert.equal(store.updates, 1);
    await leases.giveBack('s', rate, 2, NOW + 1000);
    assert.equal(leases.takeLocal('s', 1, NOW + 1001), false, 'lapsed');
  });

  it('returns units given back after their block lapsed to the counter with the next lease, not with a write of their own', async () => {
    const store = new CountingStore();
    const leases = new RateLeases(store, { rateLeaseFraction: 0.1, rateLeaseTtlMs: 1000 });
    const rate = perMinute(100);
    await leases.take('tpm', rate, 50, NOW); // leases 50 of 100
    await leases.giveBack('tpm', rate, 40, NOW + 1001); // the block lapsed: the refund waits
    assert.equal(store.updates, 1, 'no write for the refund');
    const other = new RateLeases(store, { rateLeaseFraction: 0, rateLeaseTtlMs: 0 });
    // 1 s refilled 1 unit (and a bit): 51 conform, not 52.
    assert.equal((await other.take('tpm', rate, 52, NOW + 1001)).allowed, false, 'still reserved: never more than the limit');
    assert.equal((await leases.take('tpm', rate, 10, NOW + 1001)).allowed, true);
    assert.equal(store.updates, 3, 'the refund went with the lease');
    assert.equal((await other.take('tpm', rate, 82, NOW + 1001)).allowed, false);
    assert.equal((await other.take('tpm', rate, 81, NOW + 1001)).allowed, true, '51 − 10 + the 40 given back');
  });

  it('prefetches the blocks of several limits in one store call, then takes from them without another', async () => {
    let batches = 0;
    const store = new (class extends CountingStore {
      override updateMany<Result>(updates: readonly { subject: string; decide: (current: LimitCounter | null) => LimitCounterUpdate<Result> }[], now: number): Promise<Result[]> {
        batches += 1;
        return super.updateMany(updates, now);
      }
    })();
    const leases = new RateLeases(store, { rateLeaseFraction: 0.1, rateLeaseTtlMs: 1000 });
    const wanted = [
      { subject: 'rpm', rate: perMinute(100), cost: 1 },
      { subject: 'tpm', rate: perMinute(1000), cost: 30 },
      { subject: 'model:tpm', rate: perMinute(1000), cost: 30 },
    ];
    await leases.prefetch(wanted, NOW);
    assert.equal(batches, 1);
    for (const { subject, rate, cost } of wanted) assert.equal((await leases.take(subject, rate, cost, NOW)).allowed, true);
    assert.equal(store.updates, 3, 'the three leases of the batch, and none after');
    assert.equal(leases.status('tpm', perMinute(1000), NOW).remaining, 1000 - 30, '100 leased, 30 taken');
    await leases.prefetch([{ subject: 'rpm', rate: perMinute(100), cost: 1 }, ...wanted.slice(1)], NOW);
    assert.equal(batches, 1, 'no batch while the blocks hold the costs');
  });

  it('two processes sharing one counter never admit more than one exact limiter would, plus the lease lifetime', async () => {
    const store = new MemoryLimitCounterStore();
    const rate = perMinute(60);
    const processes = [0, 1].map(() => new RateLeases(store, { rateLeaseFraction: 0.05, rateLeaseTtlMs: 1000 }));
    const admittedAt: number[] = [];
    for (let step = 0; step < 1800; step += 1) {
      const now = NOW + step * 100;
      for (const process of processes) {
        for (let burst = 0; burst < 2; burst += 1) if ((await process.take('shared', rate, 1, now)).allowed) admittedAt.push(now);
      }
    }
    // GCRA bound for any interval [a, a + d]: the burst (L) plus one unit per T over d, widened by
    // the lease lifetime (a unit may be used up to that long after it was reserved).
    const T = 1000;
    for (let start = NOW; start < NOW + 180_000; start += 500) {
      for (const length of [1000, 10_000, 60_000]) {
        const count = admittedAt.filter((at) => at >= start && at < start + length).length;
        assert.ok(count <= rate.limit + Math.ceil((length + 1000) / T), `${count} admitted in ${length} ms from ${start - NOW}`);
      }
    }
    const total = admittedAt.length;
    // Exactly one limiter would admit 60 + 179 over 180 s; leases may strand a block per process.
    assert.ok(total <= 60 + 180 + 1, `total ${total}`);
    assert.ok(total >= 60 + 179 - 2 * 3, `total ${total}: at most one block stranded per process`);
  });
});

/** A store that fails every update, to show the limiter surfaces storage errors instead of admitting. */
const failingStore: LimitCounterStore = {
  update: () => Promise.reject(new Error('database down')),
  updateMany: () => Promise.reject(new Error('database down')),
  holdSlots: () => Promise.reject(new Error('database down')),
  pruneExpired: () => Promise.reject(new Error('database down')),
};

describe('rate leases on a failing store', () => {
  it('rejects rather than admits', async () => {
    const leases = new RateLeases(failingStore);
    await assert.rejects(leases.take('s', perMinute(10), 1, NOW), /database down/);
  });
});
