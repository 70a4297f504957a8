/**
 * The behaviour every adapter's usage store must show (migration 030), written against the port's
 * {@link UsageStore} alone and run by each adapter's own test file (`sqlite/usage-store.test.ts`,
 * `postgres/usage-store.test.ts`) until the usage store joins the port's `Storage` and this suite
 * joins `describe.each(storageBackends)`.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'vitest';
import type { LimitCounter, LimitCounterUpdate, UsageStore, UsageTotal } from '../port/usage.js';

/** A fresh database behind one adapter, reachable as several stores (several processes or hosts). */
export interface UsageStoreUnderTest {
  readonly store: UsageStore;
  another(): Promise<UsageStore>;
  destroy(): Promise<void>;
}

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 24, 10);

const total = (fields: Partial<UsageTotal> = {}): UsageTotal => ({
  hourStart: T0,
  keyId: 'key-a',
  userId: 'user-a',
  model: 'llama-3',
  calls: 1,
  errors: 0,
  promptTokens: 10,
  completionTokens: 5,
  estimatedCalls: 0,
  latencyMsSum: 100,
  ...fields,
});

/** Adds `amount` to a counter that lives until `now + 60 s`. */
const addTo =
  (amount: number, now: number) =>
  (current: LimitCounter | null): LimitCounterUpdate<number> => {
    const value = (current?.value ?? 0) + amount;
    return { next: { value, expiresAt: now + 60_000 }, result: value };
  };

/** Declares the suite for one adapter. */
export function describeUsageStore(name: string, open: () => Promise<UsageStoreUnderTest>): void {
  describe(`usage store (${name})`, () => {
    let under: UsageStoreUnderTest;
    beforeEach(async () => {
      under = await open();
    });
    afterEach(() => under.destroy());

    it('adds batches to hourly totals, summing rows of one hour, key, user and model, and keeps sessions and anonymous calls apart', async () => {
      await under.store.add([total(), total({ promptTokens: 7, errors: 1, estimatedCalls: 1 }), total({ keyId: null }), total({ userId: null, keyId: null, model: 'echo' })]);
      await under.store.add([total({ completionTokens: 1, latencyMsSum: 50 }), total({ hourStart: T0 + HOUR })]);
      const rows = await under.store.totals({ start: T0, end: T0 + 2 * HOUR });
      assert.deepEqual(rows, [
        total({ keyId: null, userId: null, model: 'echo' }),
        total({ keyId: null }),
        total({ calls: 3, errors: 1, promptTokens: 27, completionTokens: 11, estimatedCalls: 1, latencyMsSum: 250 }),
        total({ hourStart: T0 + HOUR }),
      ]);
    });

    it('reads only the hours of [start, end) and only the asked user, key (null: no key) or model', async () => {
      await under.store.add([total({ hourStart: T0 - HOUR }), total(), total({ userId: 'user-b', keyId: 'key-b' }), total({ keyId: null, model: 'echo' }), total({ hourStart: T0 + HOUR })]);
      assert.equal((await under.store.totals({ start: T0, end: T0 + HOUR })).length, 3);
      assert.deepEqual((await under.store.totals({ start: T0, end: T0 + HOUR, userId: 'user-b' })).map((row) => row.keyId), ['key-b']);
      assert.deepEqual((await under.store.totals({ start: T0, end: T0 + HOUR, keyId: null })).map((row) => row.model), ['echo']);
      assert.deepEqual((await under.store.totals({ start: T0 - HOUR, end: T0 + 2 * HOUR, model: 'echo' })).length, 1);
      assert.deepEqual(await under.store.totals({ start: T0, end: T0 + HOUR, userId: 'nobody' }), []);
    });

    it('prunes the hours before a time and nothing after it', async () => {
      await under.store.add([total({ hourStart: T0 - 2 * HOUR }), total({ hourStart: T0 - HOUR }), total()]);
      assert.equal(await under.store.prune(T0 - HOUR), 1);
      assert.deepEqual((await under.store.totals({ start: 0, end: T0 + HOUR })).map((row) => row.hourStart), [T0 - HOUR, T0]);
    });

    it('updates a counter atomically, forgets it once expired, and leaves it alone when the decision says so', async () => {
      const { counters } = under.store;
      assert.equal(await counters.update('rate:key:a', T0, addTo(5, T0)), 5);
      assert.equal(await counters.update('rate:key:a', T0 + 1000, addTo(2, T0)), 7);
      assert.equal(await counters.update('rate:key:a', T0 + 1000, () => ({ next: null, result: 'unchanged' })), 'unchanged');
      assert.equal(await counters.update('rate:key:a', T0 + 60_000, addTo(1, T0 + 60_000)), 1, 'expired at T0 + 60 s: starts again');
    });

    it('updates several counters in one call, each as update would, answering in order', async () => {
      const { counters } = under.store;
      await counters.update('rate:b', T0, addTo(3, T0));
      assert.deepEqual(await counters.updateMany([{ subject: 'rate:a', decide: addTo(1, T0) }, { subject: 'rate:b', decide: addTo(2, T0) }, { subject: 'rate:c', decide: () => ({ next: null, result: -1 }) }], T0), [1, 5, -1]);
      assert.equal(await counters.update('rate:c', T0, addTo(1, T0)), 1, 'a null next left it missing');
    });

    it('updates a set of counters several processes update at once, overlapping and in any order, losing none (rows missing at first included)', async () => {
      const stores = [under.store, await under.another(), await under.another()];
      const subjects = ['rate:x', 'rate:y', 'rate:z', 'rate:w'];
      const rounds = 10;
      // The processes run at once; each leases its rounds one after another, as a process does (one
      // lease per counter in flight), so the test waits on row locks, not on a pool's queue.
      const perProcess = stores.map(async (store, index) => {
        // Each process names the counters in its own order, one of them with a counter no other one updates.
        const order = index === 1 ? [...subjects].reverse() : index === 2 ? [subjects[2], subjects[0], subjects[3], subjects[1]] : subjects;
        const answered: { index: number; round: number; values: number[] }[] = [];
        for (let round = 0; round < rounds; round += 1) {
          const values = await store.counters.updateMany([...order, `rate:only-${index}`].map((subject) => ({ subject: subject as string, decide: addTo(1, T0) })), T0);
          answered.push({ index, round, values });
        }
        return answered;
      });
      const answers = (await Promise.all(perProcess)).flat();
      for (const subject of subjects) assert.equal(await under.store.counters.update(subject, T0, addTo(0, T0)), stores.length * rounds, `${subject}: every update counted`);
      for (const index of stores.keys()) assert.equal(await under.store.counters.update(`rate:only-${index}`, T0, addTo(0, T0)), rounds);
      for (const { values } of answers) assert.equal(values.length, subjects.length + 1);
    });

    it('answers updateMany of one subject named twice as two updates in a row', async () => {
      assert.deepEqual(await under.store.counters.updateMany([{ subject: 'rate:twice', decide: addTo(1, T0) }, { subject: 'rate:twice', decide: addTo(2, T0) }], T0), [1, 3]);
    });

    it('serializes counter updates from several processes: none is lost', async () => {
      const others = [under.store, await under.another(), await under.another()];
      const updates = others.flatMap((store) => Array.from({ length: 20 }, () => store.counters.update('budget:user:a', T0, addTo(1, T0))));
      const results = await Promise.all(updates);
      assert.equal(Math.max(...results), 60);
      assert.equal(new Set(results).size, 60, 'every update saw the one before it');
    });

    it('takes concurrency slots up to the limit across processes, gives them back, and frees expired ones', async () => {
      const second = await under.another();
      // One slot each, asked for at once from two processes.
      const taken = await Promise.all(
        Array.from({ length: 6 }, (_, index) => (index % 2 === 0 ? under.store : second).counters.holdSlots('key:a', `request-${index}`, 1, 1, 4, T0, T0 + 30_000)),
      );
      assert.equal(taken.filter((held) => held === 1).length, 4);
      const holder = `request-${taken.indexOf(1)}`;
      assert.equal(await under.store.counters.holdSlots('key:a', holder, 0, 0, 4, T0, T0 + 30_000), 0, 'given back');
      assert.equal(await second.counters.holdSlots('key:a', 'request-late', 1, 1, 4, T0, T0 + 30_000), 1);
      assert.equal(await second.counters.holdSlots('key:a', 'request-later', 1, 1, 4, T0, T0 + 30_000), 0);
      assert.equal(await second.counters.holdSlots('key:a', 'request-later', 1, 1, 4, T0 + 30_000, T0 + 60_000), 1, 'the expired slots went');
      assert.equal(await second.counters.holdSlots('key:a', 'request-later', 1, 1, 1, T0 + 30_000, T0 + 60_000), 1, 'a holder renewing its own slot is not counted twice');
      assert.ok((await under.store.counters.pruneExpired(T0 + 60_000)) >= 1);
      assert.equal(await under.store.counters.holdSlots('key:a', 'request-fresh', 1, 1, 1, T0 + 60_000, T0 + 90_000), 1);
    });

    it('leases blocks of slots to processes: never more than the limit together, grown, shrunk, renewed and expired in one call each', async () => {
      const second = await under.another();
      const a = under.store.counters;
      const b = second.counters;
      assert.equal(await a.holdSlots('user:u', 'lease:a', 6, 1, 10, T0, T0 + 30_000), 6);
      assert.equal(await b.holdSlots('user:u', 'lease:b', 6, 1, 10, T0, T0 + 30_000), 4, 'as many as fit, at least the minimum');
      assert.equal(await b.holdSlots('user:u', 'lease:b', 6, 5, 10, T0, T0 + 30_000), 4, 'fewer than the minimum fit: unchanged');
      assert.equal(await a.holdSlots('user:u', 'request-1', 1, 1, 10, T0, T0 + 30_000), 0, 'a third holder finds every slot leased');
      assert.equal(await a.holdSlots('user:u', 'lease:a', 2, 0, 10, T0, T0 + 30_000), 2, 'shrunk');
      assert.equal(await b.holdSlots('user:u', 'lease:b', 8, 8, 10, T0, T0 + 40_000), 8, 'grown into what the other gave back, renewed');
      assert.equal(await a.holdSlots('user:u', 'request-1', 1, 1, 11, T0 + 30_000, T0 + 60_000), 1, "lease:a's two slots expired at T0 + 30 s");
      assert.equal(await a.holdSlots('user:u', 'lease:a', 3, 1, 10, T0 + 30_000, T0 + 60_000), 1, 'eight leased and one request: one left');
      assert.equal(await b.holdSlots('user:u', 'lease:b', 0, 0, 10, T0 + 30_000, T0 + 40_000), 0, 'given back');
      assert.equal(await a.holdSlots('user:u', 'lease:a', 9, 9, 10, T0 + 30_000, T0 + 60_000), 9);
    });
  });
}
