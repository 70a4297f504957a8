import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { BackgroundWrites } from './background-writes.js';

/** A promise with its settling functions outside. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('BackgroundWrites', () => {
  it('settles at once when nothing is pending', async () => {
    await new BackgroundWrites().settled();
  });

  it('waits for every tracked write, including one tracked while waiting, and swallows failures', async () => {
    const writes = new BackgroundWrites();
    const first = deferred();
    const late = deferred();
    writes.track(first.promise);
    let done = false;
    const waiting = writes.settled().then(() => (done = true));
    first.reject(new Error('the database is locked'));
    writes.track(late.promise);
    await Promise.resolve();
    await Promise.resolve();
    assert.equal(done, false, 'settled before the write tracked while waiting');
    late.resolve();
    await waiting;
    assert.equal(done, true);
  });
});
