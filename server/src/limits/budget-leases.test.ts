import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { ManualClock } from '../runtime/clock.js';
import { BudgetLeases } from './budget-leases.js';
import type { LimitCounter, LimitCounterUpdate } from '../storage/port/usage.js';
import { MemoryLimitCounterStore } from './memory-counter-store.js';

/** The memory store, counting the updates that reach it. */
class CountingStore extends MemoryLimitCounterStore {
  updates = 0;
  override update<Result>(subject: string, now: number, decide: (current: LimitCounter | null) => LimitCounterUpdate<Result>): Promise<Result> {
    this.updates += 1;
    return super.update(subject, now, decide);
  }
}

const monthly = { tokens: 1000, period: 'month' as const };
const daily = { tokens: 100, period: 'day' as const };

describe('budget leases', () => {
  it('refuses what the period has left, until the month boundary (UTC), then starts from zero', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 23, 59));
    const budgets = new BudgetLeases(new MemoryLimitCounterStore(), { budgetLeaseFraction: 0 });
    assert.equal((await budgets.take('key:a', monthly, 900, clock.now())).allowed, true);
    const refused = await budgets.take('key:a', monthly, 101, clock.now());
    assert.equal(refused.allowed, false);
    assert.equal(refused.remaining, 100);
    assert.equal(refused.resetMs, 60_000, 'until 1 December 00:00 UTC');
    clock.advance(59_999);
    assert.equal((await budgets.take('key:a', monthly, 101, clock.now())).allowed, false);
    clock.advance(1);
    const fresh = await budgets.take('key:a', monthly, 1000, clock.now());
    assert.equal(fresh.allowed, true);
    assert.equal(fresh.remaining, 0);
  });

  it('shares one lease among concurrent calls of a process, so it holds one block, not one per call', async () => {
    const store = new CountingStore();
    const budgets = new BudgetLeases(store, { budgetLeaseFraction: 0.1 });
    const now = Date.UTC(2026, 10, 24, 12);
    const answers = await Promise.all(Array.from({ length: 50 }, () => budgets.take('key:a', monthly, 2, now)));
    assert.ok(answers.every((answer) => answer.allowed));
    assert.equal(store.updates, 1, '50 calls of 2 tokens from one block of 100');
  });

  it('rolls a daily budget over at midnight UTC', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 24, 12));
    const budgets = new BudgetLeases(new MemoryLimitCounterStore(), { budgetLeaseFraction: 0 });
    assert.equal((await budgets.take('user:u', daily, 100, clock.now())).allowed, true);
    assert.equal((await budgets.take('user:u', daily, 1, clock.now())).allowed, false);
    clock.set(Date.UTC(2026, 10, 25));
    assert.equal((await budgets.take('user:u', daily, 100, clock.now())).allowed, true);
  });

  it('charges overruns (the budget may end overdrawn) and spends refunds first', async () => {
    const now = Date.UTC(2026, 10, 24);
    const budgets = new BudgetLeases(new MemoryLimitCounterStore(), { budgetLeaseFraction: 0 });
    await budgets.take('k', daily, 50, now);
    await budgets.charge('k', daily, 70, now);
    assert.equal(budgets.status('k', daily, now).remaining, 0);
    assert.equal((await budgets.take('k', daily, 1, now)).allowed, false);
    budgets.giveBack('k', daily, 30, now);
    assert.equal((await budgets.take('k', daily, 30, now)).allowed, true);
  });

  it('two processes leasing blocks of one budget never spend more than it together', async () => {
    const store = new MemoryLimitCounterStore();
    const now = Date.UTC(2026, 10, 24);
    const processes = [new BudgetLeases(store, { budgetLeaseFraction: 0.1 }), new BudgetLeases(store, { budgetLeaseFraction: 0.1 })];
    let spent = 0;
    for (let round = 0; round < 100; round += 1) {
      for (const process of processes) if ((await process.take('shared', { tokens: 1000, period: 'day' }, 7, now)).allowed) spent += 7;
    }
    assert.ok(spent <= 1000, `spent ${spent}`);
    assert.ok(spent >= 1000 - 2 * 100, `spent ${spent}: at most one block stranded per process`);
  });
});
