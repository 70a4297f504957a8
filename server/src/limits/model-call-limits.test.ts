/**
 * Limits and metering around model calls, on a real SQLite usage store with an injected clock: the
 * recorder's batching and retry, and ModelCallLimits' admission, settlement and metering.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { ManualClock } from '../runtime/clock.js';
import type { UsageStore, UsageTotal, UsageTotalsStore } from '../storage/port/usage.js';
import { SqliteStorage } from '../storage/sqlite/sqlite-storage.js';
import { exactLeases } from './lease-options.js';
import { MemoryLimitCounterStore } from './memory-counter-store.js';
import { ModelCallLimits, type CallParty } from './model-call-limits.js';
import { UsageLimiter } from './usage-limiter.js';
import { limitsFromWire, noLimits } from './usage-limits.js';
import { UsageMetrics } from './usage-metrics.js';
import { UsageRecorder } from './usage-recorder.js';
import { Registry } from 'prom-client';

const START = Date.UTC(2026, 10, 24, 10);
const chat = (content: string, maxTokens?: number) => ({ model: 'llama-3', messages: [{ role: 'user', content }], ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }) });

describe('usage recorder and model call limits', () => {
  let directory: string;
  let storage: SqliteStorage;
  let store: UsageStore;
  let clock: ManualClock;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'svc-model-call-limits-'));
    storage = SqliteStorage.open(join(directory, 'auth.db'));
    store = storage.usage;
    clock = new ManualClock(START);
  });
  afterEach(async () => {
    await storage.close();
    await rm(directory, { recursive: true, force: true });
  });
  const stored = () => store.totals({ start: 0, end: START + 86_400_000 });
  const call = { keyId: 'k1', userId: 'u1', model: 'm', promptTokens: 1, completionTokens: 1, estimated: false, failed: false, latencyMs: 5 };

  it('the recorder writes when the interval passed or the batch is full, not before, and on flush', async () => {
    const recorder = new UsageRecorder(store, clock, { flushIntervalMs: 10_000, maxPendingRows: 3 });
    recorder.record({ ...call, at: clock.now() });
    recorder.record({ ...call, at: clock.now() });
    await recorder.flush();
    assert.equal((await stored())[0]?.calls, 2);
    recorder.record({ ...call, at: clock.now() });
    assert.equal(recorder.pendingRows, 1, 'not due yet');
    clock.advance(10_000);
    recorder.record({ ...call, at: clock.now() });
    await recorder.flush();
    assert.equal((await stored()).reduce((sum, row) => sum + row.calls, 0), 4);
    for (const model of ['a', 'b', 'c']) recorder.record({ ...call, model, at: clock.now() });
    await recorder.flush();
    assert.equal(recorder.pendingRows, 0);
  });

  it('the recorder keeps a batch whose write failed and writes it with the next one', async () => {
    let failNext = true;
    const flaky: UsageTotalsStore = {
      add: (deltas: readonly UsageTotal[]) => {
        if (failNext) {
          failNext = false;
          return Promise.reject(new Error('the database is busy'));
        }
        return store.add(deltas);
      },
      totals: (query) => store.totals(query),
      prune: (before) => store.prune(before),
    };
    const recorder = new UsageRecorder(flaky, clock);
    recorder.record({ ...call, at: clock.now() });
    await assert.rejects(recorder.flush(), /busy/);
    recorder.record({ ...call, at: clock.now() });
    await recorder.flush();
    assert.equal((await stored())[0]?.calls, 2);
  });

  it('admits a call with headers, settles it with the real usage and meters it with its latency', async () => {
    const recorder = new UsageRecorder(store, clock);
    const limits = new ModelCallLimits(new UsageLimiter(new MemoryLimitCounterStore(), clock, exactLeases), recorder, clock);
    const party: CallParty = { keyId: 'k1', keyLimits: limitsFromWire({ tokens_per_minute: 1000 }), userId: 'u1', userLimits: noLimits };
    const start = await limits.begin({ operation: 'chat', model: 'llama-3', body: chat('abcdefgh', 100), party });
    assert.ok(start.admitted);
    if (!start.admitted) return;
    assert.equal(start.headers['x-ratelimit-remaining-tokens'], String(1000 - (3 + 4 + 2) - 100));
    clock.advance(250);
    const after = await start.call.end({ usage: { promptTokens: 9, completionTokens: 11, estimated: false }, failed: false });
    assert.equal(after['x-ratelimit-remaining-tokens'], '984', '20 used, and 250 ms refilled 4');
    await start.call.end({ usage: { promptTokens: 500, completionTokens: 500, estimated: false }, failed: false });
    await recorder.flush();
    const [row] = await stored();
    assert.deepEqual(
      { calls: row?.calls, prompt: row?.promptTokens, completion: row?.completionTokens, latency: row?.latencyMsSum, key: row?.keyId, user: row?.userId },
      { calls: 1, prompt: 9, completion: 11, latency: 250, key: 'k1', user: 'u1' },
      'ended once',
    );
  });

  it('refuses a call over the user’s limit with the 429’s details, metered as a failed call without tokens', async () => {
    const recorder = new UsageRecorder(store, clock);
    const registry = new Registry();
    const limits = new ModelCallLimits(new UsageLimiter(new MemoryLimitCounterStore(), clock, exactLeases), recorder, clock, { metrics: new UsageMetrics(registry) });
    const party: CallParty = { keyId: null, keyLimits: noLimits, userId: 'u1', userLimits: limitsFromWire({ requests_per_minute: 1 }) };
    assert.ok((await limits.begin({ operation: 'embedding', model: 'e', body: { input: 'x' }, party })).admitted);
    const refused = await limits.begin({ operation: 'embedding', model: 'e', body: { input: 'x' }, party });
    assert.equal(refused.admitted, false);
    if (refused.admitted) return;
    assert.equal(refused.code, 'rate_limit_exceeded');
    assert.equal(refused.headers['retry-after'], '60');
    await recorder.flush();
    const [row] = await stored();
    assert.deepEqual([row?.calls, row?.errors, row?.promptTokens, row?.keyId], [1, 1, 0, null]);
    assert.match(await registry.metrics(), /^svc_usage_limited_total\{code="rate_limit_exceeded"\} 1$/m);
  });
});
