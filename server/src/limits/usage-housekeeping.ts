/**
 * Keeps the usage tables bounded (issue 17): deletes the hourly totals older than their retention
 * (`SVC_USAGE_RETENTION_DAYS`, apart from the audit's), the limit counters and concurrency slots
 * that expired, and this process's memory of limits that no longer limit anything. The server runs
 * it at start-up and every hour; time comes from the injected clock.
 */
import type { Clock } from '../runtime/clock.js';
import type { UsageStore } from '../storage/port/usage.js';
import { DAY_MS, hourStart } from './usage-meter.js';
import type { UsageLimiter } from './usage-limiter.js';

/** What one run deleted. */
export interface HousekeepingReport {
  /** Hourly totals older than the retention. */
  totals: number;
  /** Expired limit counters and slots. */
  counters: number;
}

/** The usage tables' upkeep for one server. */
export class UsageHousekeeping {
  readonly #store: UsageStore;
  readonly #limiter: UsageLimiter;
  readonly #clock: Clock;
  readonly #retentionDays: number;

  /** @param retentionDays - how many days of hourly totals are kept (whole hours older are deleted). */
  constructor(store: UsageStore, limiter: UsageLimiter, clock: Clock, retentionDays: number) {
    this.#store = store;
    this.#limiter = limiter;
    this.#clock = clock;
    this.#retentionDays = retentionDays;
  }

  /** Deletes what is past its time; answers how many rows went. */
  async run(): Promise<HousekeepingReport> {
    const now = this.#clock.now();
    this.#limiter.forgetIdle();
    const totals = await this.#store.prune(hourStart(now - this.#retentionDays * DAY_MS));
    const counters = await this.#store.counters.pruneExpired(now);
    return { totals, counters };
  }
}
