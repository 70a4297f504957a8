/**
 * On PostgreSQL a model call reads the change feed's epochs once: the guard's read for the request
 * (`request.epochs`) serves the ban list, the authenticator, the audit record's model lookup and the
 * model lookup itself. Counted at the driver: every query that reaches the database through `pg` is
 * observed (and still runs), and the reads of `cache_epochs` per request are counted.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertError, createKey, setupAdmin, startTestServer, type LoggedInUser, type TestServer } from '../testing/index.js';
import { createTestDatabase, type TestDatabase } from '../testing/postgres-database.js';

/** Counts the queries of `cache_epochs` that reach PostgreSQL from this process. */
class EpochReadCounter {
  count = 0;
  readonly #original = pg.Client.prototype.query;

  install(): void {
    const original = this.#original;
    const counter = this;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const [first] = args;
      const text = typeof first === 'string' ? first : typeof first === 'object' && first !== null && 'text' in first ? String(first.text) : '';
      if (/\bFROM cache_epochs\b/.test(text)) counter.count += 1;
      return (original as (...parameters: unknown[]) => unknown).apply(this, args);
    } as typeof pg.Client.prototype.query;
  }

  uninstall(): void {
    pg.Client.prototype.query = this.#original;
  }

  /** How many epoch reads `work` caused. */
  async during<T>(work: () => Promise<T>): Promise<{ reads: number; result: T }> {
    const before = this.count;
    const result = await work();
    return { reads: this.count - before, result };
  }
}

describe('model calls on PostgreSQL read the epochs once per request', () => {
  const counter = new EpochReadCounter();
  let database: TestDatabase;
  let hostA: TestServer;
  let hostB: TestServer;
  let admin: LoggedInUser;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = { SVC_DATABASE_URL: database.url, SVC_AUTH_JWT_SECRET_KEY: randomBytes(32).toString('hex'), SVC_AUTH_ENCRYPTION_KEY: randomBytes(32).toString('hex') };
    hostA = await startTestServer({ env });
    hostB = await startTestServer({ env });
    admin = await setupAdmin(hostA);
    for (const body of [
      { model_uid: 'chat', model_name: 'echo' },
      { model_uid: 'embed', model_name: 'hash-embedding', model_type: 'embedding' },
      { model_uid: 'doomed', model_name: 'echo' },
    ]) {
      const launched = await hostA.request('POST', '/v1/models', { token: admin.accessToken, body });
      assert.equal(launched.status, 200, launched.text);
    }
    key = (await createKey(hostA, admin.accessToken, { name: 'epoch reads' })).key;
    counter.install();
  });

  afterAll(async () => {
    counter.uninstall();
    await hostA?.close();
    await hostB?.close();
    await database?.drop();
  });

  const calls: { name: string; method: string; path: string; body?: unknown }[] = [
    { name: 'a chat completion', method: 'POST', path: '/v1/chat/completions', body: { model: 'chat', messages: [{ role: 'user', content: 'hello' }] } },
    { name: 'a streamed chat completion', method: 'POST', path: '/v1/chat/completions', body: { model: 'chat', stream: true, messages: [{ role: 'user', content: 'hello' }] } },
    { name: 'a completion', method: 'POST', path: '/v1/completions', body: { model: 'chat', prompt: 'hello' } },
    { name: 'embeddings', method: 'POST', path: '/v1/embeddings', body: { model: 'embed', input: 'hello' } },
    { name: 'a model looked up', method: 'GET', path: '/v1/models/chat' },
    { name: "a model's launch progress", method: 'GET', path: '/v1/models/chat/progress' },
  ];

  for (const call of calls) {
    for (const credential of ['an access token', 'an API key'] as const) {
      it(`Should read the epochs once for ${call.name} with ${credential}`, async () => {
        const token = credential === 'an access token' ? admin.accessToken : key;
        // Twice: the first request may fill caches; neither may add a read of its own.
        for (const attempt of [1, 2]) {
          const { reads, result } = await counter.during(() => hostA.request(call.method, call.path, { token, ...(call.body === undefined ? {} : { body: call.body }) }));
          assert.equal(result.status, 200, result.text);
          assert.equal(reads, 1, `epoch reads of request ${attempt}`);
        }
      });
    }
  }

  it('Should still see a model stopped through another host on the next request, with that one read', async () => {
    const warm = await counter.during(() => hostA.request('POST', '/v1/chat/completions', { token: key, body: { model: 'doomed', messages: [{ role: 'user', content: 'hi' }] } }));
    assert.equal(warm.result.status, 200, warm.result.text);
    const stopped = await counter.during(() => hostB.request('DELETE', '/v1/models/doomed', { token: admin.accessToken }));
    assert.equal(stopped.result.status, 200, stopped.result.text);
    assert.equal(stopped.reads, 1, 'the stop reads the epochs once too');
    const { reads, result } = await counter.during(() => hostA.request('POST', '/v1/chat/completions', { token: key, body: { model: 'doomed', messages: [{ role: 'user', content: 'hi' }] } }));
    assertError(result, 404, 'model_not_found');
    assert.equal(reads, 1);
  });
});
