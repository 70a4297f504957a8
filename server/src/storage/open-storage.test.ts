import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { ManualClock } from '../runtime/clock.js';
import { OFFLINE_TOOL_WAIT_MS, whileNotReady, type RetryTiming } from './open-storage.js';
import { StorageUnavailableError } from './port/index.js';
import { toStorageError } from './postgres/errors.js';

/** A failure as the PostgreSQL adapter reports it, from a driver error with `code`. */
const failure = (code: string, message = 'boom'): unknown => toStorageError(Object.assign(new Error(message), { code }));

/** A manual clock whose pauses move it (no real waiting), counting them. */
function manualTiming(): RetryTiming & { clock: ManualClock; pauses: number } {
  const clock = new ManualClock(0);
  const timing = {
    clock,
    pauses: 0,
    pause: async (ms: number) => {
      timing.pauses += 1;
      clock.advance(ms);
    },
  };
  return timing;
}

describe("an offline tool's wait for its database", () => {
  it('tries again while the database is unavailable, and answers as soon as it can be opened', async () => {
    const timing = manualTiming();
    let attempts = 0;
    const opened = await whileNotReady(
      async () => {
        attempts += 1;
        // As right after `compose up`: no answer in time, then the server still starting.
        if (attempts === 1) throw new StorageUnavailableError('the database is unavailable: timeout expired');
        if (attempts === 2) throw failure('57P03', 'the database system is starting up');
        return 'storage';
      },
      OFFLINE_TOOL_WAIT_MS,
      timing,
    );
    assert.equal(opened, 'storage');
    assert.equal(attempts, 3);
    assert.equal(timing.pauses, 2);
  });

  it('gives up with the last failure once the wait is over, counting the time each attempt took', async () => {
    const timing = manualTiming();
    let attempts = 0;
    await assert.rejects(
      whileNotReady(
        async () => {
          attempts += 1;
          timing.clock.advance(10_000); // an attempt that waits out its connect timeout
          throw new StorageUnavailableError(`the database is unavailable: timeout expired (attempt ${attempts})`);
        },
        30_000,
        timing,
      ),
      /attempt 3/,
    );
    assert.equal(attempts, 3, 'at 0, 10.5 and 21 s; a fourth would start after 30 s');
  });

  it('does not try again after a failure that says "no": refused, a wrong password, no such database, a schema error', async () => {
    for (const error of [failure('ECONNREFUSED'), failure('28P01'), failure('3D000'), new Error('the schema is newer than this server')]) {
      const timing = manualTiming();
      let attempts = 0;
      await assert.rejects(
        whileNotReady(
          async () => {
            attempts += 1;
            throw error;
          },
          OFFLINE_TOOL_WAIT_MS,
          timing,
        ),
        (thrown: unknown) => thrown === error,
      );
      assert.equal(attempts, 1, String(error));
      assert.equal(timing.pauses, 0);
    }
  });
});
