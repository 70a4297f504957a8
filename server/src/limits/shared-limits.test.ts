/**
 * Two limiters (two processes) on one real SQLite file share one limit through the usage store's
 * counters: together they stay within it, with leases (default options) cutting the store's work.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ManualClock } from '../runtime/clock.js';
import type { UsageStore } from '../storage/port/usage.js';
import { SqliteStorage } from '../storage/sqlite/sqlite-storage.js';
import { UsageLimiter } from './usage-limiter.js';
import { limitsFromWire } from './usage-limits.js';

describe('limits shared by two processes on one SQLite file', () => {
  let directory: string;
  const opened: SqliteStorage[] = [];
  /** Another process: a storage of its own on the same file. */
  const open = (): UsageStore => {
    const storage = SqliteStorage.open(join(directory, 'auth.db'));
    opened.push(storage);
    return storage.usage;
  };

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'svc-shared-limits-'));
  });
  afterAll(async () => {
    for (const storage of opened) await storage.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('two limiters admit no more requests together than the limit allows, and both refuse once it is spent', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 24, 10));
    const limiters = [new UsageLimiter(open().counters, clock), new UsageLimiter(open().counters, clock)];
    const scopes = [{ kind: 'key' as const, id: 'shared', limits: limitsFromWire({ requests_per_minute: 100 }) }];
    let admitted = 0;
    let request = 0;
    await Promise.all(
      limiters.map(async (limiter) => {
        for (let index = 0; index < 80; index += 1) {
          request += 1;
          const answer = await limiter.admit({ model: 'm', scopes, estimatedTokens: 1 });
          if (answer.admitted) admitted += 1;
        }
      }),
    );
    assert.equal(admitted, 100);
    for (const limiter of limiters) assert.equal((await limiter.admit({ model: 'm', scopes, estimatedTokens: 1 })).admitted, false);
  });

  it('two limiters share one concurrency cap', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 24, 11));
    const limiters = [new UsageLimiter(open().counters, clock), new UsageLimiter(open().counters, clock)];
    const scopes = [{ kind: 'user' as const, id: 'busy', limits: limitsFromWire({ max_concurrent_requests: 3 }) }];
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) => (limiters[index % 2] as UsageLimiter).admit({ model: 'm', scopes, estimatedTokens: 1 })),
    );
    const admitted = answers.filter((answer) => answer.admitted);
    assert.equal(admitted.length, 3);
    const first = admitted[0];
    if (first?.admitted === true) await (limiters[answers.indexOf(first) % 2] as UsageLimiter).settle(first.ticket, 1);
    assert.equal((await (limiters[1] as UsageLimiter).admit({ model: 'm', scopes, estimatedTokens: 1 })).admitted, true);
  });
});
