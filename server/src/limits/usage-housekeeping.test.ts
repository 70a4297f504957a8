import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { ManualClock } from '../runtime/clock.js';
import { SqliteStorage } from '../storage/sqlite/sqlite-storage.js';
import type { UsageTotal } from '../storage/port/usage.js';
import { UsageHousekeeping } from './usage-housekeeping.js';
import { UsageLimiter } from './usage-limiter.js';
import { noLimits } from './usage-limits.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 24, 12, 30);

const total = (hourStart: number): UsageTotal => ({
  hourStart,
  keyId: null,
  userId: 'u',
  model: 'm',
  calls: 1,
  errors: 0,
  promptTokens: 1,
  completionTokens: 1,
  estimatedCalls: 0,
  latencyMsSum: 1,
});

describe('usage housekeeping', () => {
  it('deletes the totals older than the retention and the expired counters, keeping the rest', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'svc-usage-housekeeping-'));
    const storage = SqliteStorage.open(join(directory, 'auth.db'));
    try {
      const clock = new ManualClock(NOW);
      const limiter = new UsageLimiter(storage.usage.counters, clock);
      const within = Date.UTC(2026, 10, 14, 12); // exactly 10 days before the current hour
      await storage.usage.add([total(within - HOUR), total(within), total(Date.UTC(2026, 10, 24, 12))]);
      const oneRequest = { model: 'm', scopes: [{ kind: 'key' as const, id: 'k', limits: { ...noLimits, requestsPerMinute: 60 } }], estimatedTokens: 1 };
      assert.equal((await limiter.admit(oneRequest)).admitted, true);

      const housekeeping = new UsageHousekeeping(storage.usage, limiter, clock, 10);
      assert.deepEqual(await housekeeping.run(), { totals: 1, counters: 0 }, 'the counter of a limit just used is kept');
      const left = await storage.usage.totals({ start: 0, end: NOW + DAY });
      assert.deepEqual(left.map((row) => row.hourStart), [within, Date.UTC(2026, 10, 24, 12)]);

      clock.advance(10 * 60_000);
      assert.deepEqual(await housekeeping.run(), { totals: 0, counters: 1 }, 'the rate counter expired once the limit was full again');
    } finally {
      await storage.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
