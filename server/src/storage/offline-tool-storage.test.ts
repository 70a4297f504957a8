import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ManualClock } from '../runtime/clock.js';
import { entryPoint, nodeArguments } from '../testing/node-command.js';
import { createTestDatabase, type TestDatabase } from '../testing/postgres-database.js';
import { OFFLINE_TOOL_WAIT_MS, whileNotReady, type RetryTiming } from './offline-tool-storage.js';
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

/** `whileNotReady` as the tools call it (a 60 s wait), on `timing`. */
const waitFor = <T>(attempt: () => Promise<T>, timing: RetryTiming): Promise<T> => whileNotReady(attempt, OFFLINE_TOOL_WAIT_MS, timing);

describe("an offline tool's wait for its database", () => {
  it('tries again while the database is not ready yet, and answers as soon as it can be opened', async () => {
    const timing = manualTiming();
    let attempts = 0;
    const opened = await waitFor(async () => {
      attempts += 1;
      // As right after `compose up`: no answer in time, then the server still starting.
      if (attempts === 1) throw new Error('timeout expired');
      if (attempts === 2) throw failure('57P03', 'the database system is starting up');
      return 'storage';
    }, timing);
    assert.equal(opened, 'storage');
    assert.equal(attempts, 3);
    assert.equal(timing.pauses, 2);
  });

  it('gives up once the wait is over, counting the time each attempt took, and says what it waited for', async () => {
    const timing = manualTiming();
    let attempts = 0;
    await assert.rejects(
      waitFor(async () => {
        attempts += 1;
        timing.clock.advance(20_000); // an attempt that waits long for its connection
        throw new Error('timeout expired');
      }, timing),
      (error: unknown) => {
        assert.ok(error instanceof StorageUnavailableError);
        assert.equal(error.message, 'the database was not ready after 3 attempts in 61 s; the last: no connection was ready within 30 s (timeout expired)');
        return true;
      },
    );
    assert.equal(attempts, 3, 'at 0, 20.5 and 41 s; a fourth would start after 60 s');
  });

  it('does not try again after a failure that says "no": refused, a wrong password, no such database, a schema error', async () => {
    for (const error of [failure('ECONNREFUSED'), failure('28P01'), failure('3D000'), new Error('the schema is newer than this server')]) {
      const timing = manualTiming();
      let attempts = 0;
      await assert.rejects(
        waitFor(async () => {
          attempts += 1;
          throw error;
        }, timing),
        (thrown: unknown) => thrown === error,
      );
      assert.equal(attempts, 1, String(error));
      assert.equal(timing.pauses, 0);
    }
  });
});

/** PostgreSQL's answer to a connection while it starts up: an ErrorResponse with SQLSTATE 57P03. */
function startingUpResponse(): Buffer {
  const fields = Buffer.from('SFATAL\0VFATAL\0C57P03\0Mthe database system is starting up\0\0');
  const length = Buffer.alloc(4);
  length.writeInt32BE(fields.length + 4);
  return Buffer.concat([Buffer.from('E'), length, fields]);
}

/**
 * A front for the PostgreSQL at `target` that answers its first `startingUp` connections as a server
 * still starting up does, then passes every later one through.
 */
async function startingUpFront(target: URL, startingUp: number): Promise<{ url: URL; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    connections += 1;
    sockets.add(client);
    client.on('error', () => undefined);
    if (connections <= startingUp) {
      client.once('data', () => client.end(startingUpResponse()));
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target.href);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url,
    connections: () => connections,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('svc-audit-verify on a PostgreSQL that is still starting up (a real process)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('waits until the database is ready, then checks the chain (exit 0)', async () => {
    const front = await startingUpFront(new URL(database.url), 2);
    try {
      const cli = entryPoint('../bin/svc-audit-verify', import.meta.url);
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, nodeArguments(cli, ['--json']), { env: { PATH: process.env['PATH'] ?? '', SVC_DATABASE_URL: front.url.href } }, (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? 1), stdout, stderr });
        });
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal((JSON.parse(result.stdout) as { ok: boolean }).ok, true, result.stdout);
      assert.ok(front.connections() > 2, `${front.connections()} connections: the tool did not try again`);
    } finally {
      await front.close();
    }
  });
});
