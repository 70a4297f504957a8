import assert from 'node:assert/strict';
import net from 'node:net';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../testing/postgres-database.js';
import { StorageUnavailableError } from '../port/errors.js';
import { openPostgresStorage } from './postgres-storage.js';

/** A loopback port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

describe('opening PostgreSQL storage', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ empty: true });
  });
  afterAll(() => database.drop());

  it('migrates an empty database and answers a ping', async () => {
    const storage = await openPostgresStorage({ url: database.url });
    try {
      assert.equal(storage.backend, 'postgres');
      await storage.ping();
      assert.equal(await storage.users.exists(), false);
    } finally {
      await storage.close();
    }
  });

  it('refuses a wrong password as unavailable, never showing the password', async () => {
    const url = new URL(database.url);
    url.password = 'wrong-password-7f3a';
    await assert.rejects(openPostgresStorage({ url: url.toString() }), (error: unknown) => {
      assert.ok(error instanceof StorageUnavailableError);
      assert.match(error.message, /password authentication failed/);
      assert.ok(!error.message.includes('wrong-password-7f3a'));
      return true;
    });
  });

  it('refuses an unreachable server as unavailable', async () => {
    const url = new URL(database.url);
    url.port = String(await closedPort());
    await assert.rejects(openPostgresStorage({ url: url.toString() }), (error: unknown) => {
      assert.ok(error instanceof StorageUnavailableError);
      assert.match(error.message, /ECONNREFUSED/);
      assert.ok(!error.message.includes(url.password));
      return true;
    });
  });

  it('refuses a server that accepts the connection and never answers as unavailable (pg.Client connect timeout, "timeout expired")', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const sockets = new Set<net.Socket>();
    const accepted = new Promise<void>((resolve) =>
      silent.on('connection', (socket) => {
        sockets.add(socket);
        resolve();
      }),
    );
    // pg's connect timeout is a setTimeout: faked, and moved past once the connection is accepted.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const url = new URL(database.url);
      url.port = String((silent.address() as net.AddressInfo).port);
      const opening = openPostgresStorage({ url: url.toString(), connectionTimeoutMs: 2000 });
      await accepted;
      vi.advanceTimersByTime(2000);
      await assert.rejects(opening, (error: unknown) => {
        assert.ok(error instanceof StorageUnavailableError, String(error));
        assert.match(error.message, /timeout expired/);
        return true;
      });
    } finally {
      vi.useRealTimers();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
