import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import type { Epochs } from '../port/index.js';
import { EpochGate } from './epoch-gate.js';

/** An epoch read the test finishes by hand, recording when each read started. */
function controlledReads() {
  const pending: { resolve: (epochs: Epochs) => void; reject: (error: Error) => void }[] = [];
  let started = 0;
  const read = (): Promise<Epochs> => {
    started += 1;
    return new Promise<Epochs>((resolve, reject) => pending.push({ resolve, reject }));
  };
  const epochs = (access: number): Epochs => ({ access, bans: 0, models: 0 });
  return {
    read,
    get started() {
      return started;
    },
    finish(access: number) {
      pending.shift()?.resolve(epochs(access));
    },
    fail(error: Error) {
      pending.shift()?.reject(error);
    },
  };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('the epoch gate', () => {
  it('answers a call with a read started after it: calls during a read wait for the next one, which they share', async () => {
    const reads = controlledReads();
    const gate = new EpochGate(reads.read);
    const first = gate.current();
    assert.equal(reads.started, 1);
    const second = gate.current();
    const third = gate.current();
    assert.equal(reads.started, 1, 'no second read while one is in flight');
    reads.finish(1);
    assert.equal((await first).access, 1);
    await flush();
    assert.equal(reads.started, 2, 'one read for both waiting calls');
    reads.finish(2);
    assert.equal((await second).access, 2, 'not the answer of the read that started before the call');
    assert.equal((await third).access, 2);
    const fourth = gate.current();
    assert.equal(reads.started, 3);
    reads.finish(3);
    assert.equal((await fourth).access, 3);
  });

  it('passes a failed read on to its callers, and the next call reads again', async () => {
    const reads = controlledReads();
    const gate = new EpochGate(reads.read);
    const first = gate.current();
    const second = gate.current();
    reads.fail(new Error('database away'));
    await assert.rejects(first, /database away/);
    await flush();
    reads.fail(new Error('still away'));
    await assert.rejects(second, /still away/);
    const third = gate.current();
    reads.finish(7);
    assert.equal((await third).access, 7);
  });
});
