/**
 * The usage aggregate of the storage port (issue 17): metered model calls summed per hour, and the
 * shared counters of the usage limiters (rate limits, budgets, concurrency slots).
 *
 * Times are epoch milliseconds given by the caller's clock. The limiters (`limits/`) decide; the
 * stores only read and write atomically, so one limiter algorithm serves every adapter.
 */

/** One hour's totals of one (key, user, model): the unit metering adds up and reports. */
export interface UsageTotal {
  /** The start of the UTC hour, epoch ms (a multiple of 3,600,000). */
  hourStart: number;
  /** The API key's id, or null for calls made with a session (no key). */
  keyId: string | null;
  /** The caller's user id, or null when authentication is disabled. */
  userId: string | null;
  model: string;
  calls: number;
  /** Calls that ended in an error (any status ≥ 400, or a stream cut off). */
  errors: number;
  promptTokens: number;
  completionTokens: number;
  /** Calls whose tokens were estimated because the engine reported no `usage`. */
  estimatedCalls: number;
  /** Sum of the calls' latencies in ms (divide by `calls` for the mean). */
  latencyMsSum: number;
}

/** Which totals {@link UsageStore.totals} reads: hours in `[start, end)`, optionally narrowed. */
export interface UsageQuery {
  start: number;
  end: number;
  /** Only this user's calls (`null`: calls without a user). */
  userId?: string | null;
  /** Only this key's calls (`null`: calls without a key). */
  keyId?: string | null;
  model?: string;
}

/** The state of one limit counter: a number that expires. */
export interface LimitCounter {
  /** A rate limit's theoretical arrival time (ms), or a budget's tokens used in its period. */
  value: number;
  /** When the counter may be forgotten (epoch ms): its value no longer limits anything then. */
  expiresAt: number;
}

/**
 * What a counter update decides from the current state: the counter's next state (null: leave it
 * unchanged) and the answer to give the caller.
 */
export interface LimitCounterUpdate<Result> {
  next: LimitCounter | null;
  result: Result;
}

/** One counter's update in {@link LimitCounterStore.updateMany}. */
export interface CounterUpdate<Result> {
  subject: string;
  decide: (current: LimitCounter | null) => LimitCounterUpdate<Result>;
}

/** Hourly usage totals, kept beyond the audit's retention. */
export interface UsageTotalsStore {
  /**
   * Adds every delta to the total of its (hour, key, user, model), creating it when missing, all in
   * one atomic step (a batch flushed by the meter: one statement per batch, not per call).
   */
  add(deltas: readonly UsageTotal[]): Promise<void>;
  /** The totals of the hours in `[query.start, query.end)`, oldest hour first. */
  totals(query: UsageQuery): Promise<UsageTotal[]>;
  /** Deletes the totals of the hours before `before`; answers how many rows went. */
  prune(before: number): Promise<number>;
}

/**
 * Counters shared by every process and host. A limiter calls {@link update} to take (lease) a block
 * of capacity or give back what it did not use, not once per request: see `limits/shared-limiter.ts`.
 */
export interface LimitCounterStore {
  /**
   * Atomically reads the counter `subject` (null when missing or expired at `now`), asks `decide`
   * for its next state, stores it and answers `decide`'s result. `decide` is synchronous and pure:
   * an adapter may call it again when it retries the step.
   */
  update<Result>(subject: string, now: number, decide: (current: LimitCounter | null) => LimitCounterUpdate<Result>): Promise<Result>;
  /**
   * {@link update} of several counters at once, each atomic as there, answering their results in
   * order: the blocks of one call's limits lapse together and are leased again together. An adapter
   * whose writes block (SQLite) makes them one transaction; others may run them side by side.
   */
  updateMany<Result>(updates: readonly CounterUpdate<Result>[], now: number): Promise<Result[]>;
  /**
   * Sets how many slots of `subject` `holder` holds (one process's lease of slots, `limits/slot-leases.ts`),
   * all of them until `expiresAt`: `count` when that many fit under `limit` beside every other
   * holder's unexpired slots, else as many as fit when at least `minimum` do; otherwise changes
   * nothing. Answers how many `holder` holds afterwards. Atomic across processes, one store call
   * whatever the count. The slots are the rows `<holder>#<index>`, counted like any other slot.
   */
  holdSlots(subject: string, holder: string, count: number, minimum: number, limit: number, now: number, expiresAt: number): Promise<number>;
  /** Deletes expired counters and slots; answers how many rows went. */
  pruneExpired(now: number): Promise<number>;
}

/** Usage metering and limiter state, as one store. */
export interface UsageStore extends UsageTotalsStore {
  readonly counters: LimitCounterStore;
}
