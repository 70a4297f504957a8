import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { groupUsage, HOUR_MS, hourStart, mergeUsageTotals, totalOf, UsageMeter, type MeteredCall } from './usage-meter.js';

const T0 = Date.UTC(2026, 10, 24, 10);
const call = (fields: Partial<MeteredCall> = {}): MeteredCall => ({
  at: T0 + 5 * 60_000,
  keyId: 'k1',
  userId: 'u1',
  model: 'llama-3',
  promptTokens: 10,
  completionTokens: 5,
  estimated: false,
  failed: false,
  latencyMs: 120,
  ...fields,
});

describe('usage metering', () => {
  it('files a call under its UTC hour with one call, its tokens, error and estimate marks, and latency', () => {
    assert.equal(hourStart(T0 + HOUR_MS - 1), T0);
    assert.deepEqual(totalOf(call({ failed: true, estimated: true })), {
      hourStart: T0,
      keyId: 'k1',
      userId: 'u1',
      model: 'llama-3',
      calls: 1,
      errors: 1,
      promptTokens: 10,
      completionTokens: 5,
      estimatedCalls: 1,
      latencyMsSum: 120,
    });
  });

  it('sums the calls of one hour, key, user and model in the pending batch, drains it, and takes back a batch that failed to write', () => {
    const meter = new UsageMeter();
    meter.record(call());
    meter.record(call({ promptTokens: 1 }));
    meter.record(call({ keyId: null }));
    meter.record(call({ at: T0 + HOUR_MS }));
    assert.equal(meter.pendingRows, 3);
    const batch = meter.drain();
    assert.equal(meter.pendingRows, 0);
    assert.equal(batch[0]?.calls, 2);
    assert.equal(batch[0]?.promptTokens, 11);
    meter.record(call());
    meter.restore(batch);
    assert.equal(meter.drain().find((row) => row.keyId === 'k1' && row.hourStart === T0)?.calls, 3);
  });

  it('merges totals of one identity', () => {
    const total = totalOf(call());
    assert.deepEqual(mergeUsageTotals([total, total, { ...total, model: 'other' }]).map((row) => [row.model, row.calls]), [
      ['llama-3', 2],
      ['other', 1],
    ]);
  });

  it('groups totals by key, user or model per hour or UTC day, with total tokens and mean latency', () => {
    const totals = [totalOf(call()), totalOf(call({ at: T0 + HOUR_MS, latencyMs: 80, keyId: 'k2' })), totalOf(call({ at: T0 + 20 * HOUR_MS, model: 'echo' }))];
    const byModelDaily = groupUsage(totals, 'model', 'day');
    assert.deepEqual(
      byModelDaily.map((row) => [new Date(row.periodStart).toISOString(), row.group, row.calls, row.totalTokens, row.meanLatencyMs]),
      [
        ['2026-11-24T00:00:00.000Z', 'llama-3', 2, 30, 100],
        ['2026-11-25T00:00:00.000Z', 'echo', 1, 15, 120],
      ],
    );
    assert.deepEqual(groupUsage(totals, 'key', 'hour').map((row) => row.group), ['k1', 'k2', 'k1']);
    assert.deepEqual(groupUsage([], 'user', 'hour'), []);
  });
});
