/**
 * The in-process {@link LimitCounterStore}: counters and slots in maps, exact and immediate. For a
 * single server process, and for tests of the limiters; several processes share counters through
 * the database's store instead (`storage/sqlite/usage-store.ts`, `storage/postgres/usage-store.ts`).
 */
import type { CounterUpdate, LimitCounter, LimitCounterStore, LimitCounterUpdate } from '../storage/port/usage.js';

/** Counters and concurrency slots of one process. */
export class MemoryLimitCounterStore implements LimitCounterStore {
  readonly #counters = new Map<string, LimitCounter>();
  readonly #slots = new Map<string, Map<string, number>>();

  update<Result>(subject: string, now: number, decide: (current: LimitCounter | null) => LimitCounterUpdate<Result>): Promise<Result> {
    const stored = this.#counters.get(subject);
    const { next, result } = decide(stored === undefined || stored.expiresAt <= now ? null : { ...stored });
    if (next !== null) this.#counters.set(subject, { ...next });
    return Promise.resolve(result);
  }

  updateMany<Result>(updates: readonly CounterUpdate<Result>[], now: number): Promise<Result[]> {
    return Promise.all(updates.map(({ subject, decide }) => this.update(subject, now, decide)));
  }

  holdSlots(subject: string, holder: string, count: number, minimum: number, limit: number, now: number, expiresAt: number): Promise<number> {
    const slots = this.#slots.get(subject) ?? new Map<string, number>();
    this.#slots.set(subject, slots);
    const prefix = `${holder}#`;
    let others = 0;
    let mine = 0;
    for (const [name, expiry] of slots) {
      if (expiry <= now) slots.delete(name);
      else if (name.startsWith(prefix)) mine += 1;
      else others += 1;
    }
    const granted = Math.min(count, limit - others);
    if (granted < minimum) return Promise.resolve(mine);
    for (const name of [...slots.keys()]) if (name.startsWith(prefix)) slots.delete(name);
    for (let index = 0; index < granted; index += 1) slots.set(`${prefix}${index}`, expiresAt);
    return Promise.resolve(Math.max(0, granted));
  }

  pruneExpired(now: number): Promise<number> {
    let pruned = 0;
    for (const [subject, counter] of this.#counters) {
      if (counter.expiresAt <= now) {
        this.#counters.delete(subject);
        pruned += 1;
      }
    }
    for (const [subject, slots] of this.#slots) {
      for (const [holder, expiry] of slots) {
        if (expiry <= now) {
          slots.delete(holder);
          pruned += 1;
        }
      }
      if (slots.size === 0) this.#slots.delete(subject);
    }
    return Promise.resolve(pruned);
  }
}
