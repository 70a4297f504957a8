import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../testing/fake-upstream.js';
import { pollUntil } from '../testing/polling.js';
import { UpstreamEngine, type UpstreamReply } from './upstream-engine.js';
import { UpstreamPolicy } from './upstream-policy.js';

const chat = (baseUrl: string) => ({ baseUrl, path: '/chat/completions', apiKey: null, body: { model: 'm', messages: [{ role: 'user', content: 'Hello' }] }, stream: false });

function bodyOf(reply: UpstreamReply): Record<string, unknown> {
  assert.equal(reply.kind, 'body');
  return JSON.parse((reply as { body: Buffer }).body.toString('utf8')) as Record<string, unknown>;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('upstream engine: connections', () => {
  let upstream: FakeUpstream;
  let engine: UpstreamEngine;
  beforeAll(async () => {
    upstream = await startFakeUpstream({ record: false });
  });
  afterEach(() => engine.close());
  afterAll(async () => upstream.close());

  it('32 concurrent calls open 32 connections, and the next 32 reuse them without opening more', async () => {
    engine = new UpstreamEngine(30_000, new UpstreamPolicy(null));
    const wave = () => Promise.all(Array.from({ length: 32 }, () => engine.call(chat(upstream.baseUrl))));
    for (const reply of await wave()) assert.equal(bodyOf(reply)['object'], 'chat.completion');
    assert.deepEqual([engine.connectionStats().opened, engine.connectionStats().mostOpen], [32, 32]);
    await nextTurn();
    await wave();
    const stats = engine.connectionStats();
    assert.equal(stats.opened, 32, 'no connection opened for the second wave');
    assert.equal(stats.reused, 32);
  });

  it('a call on a connection idle since an earlier turn is written at once, not held for the next turn', async () => {
    engine = new UpstreamEngine(30_000, new UpstreamPolicy(null));
    for (let call = 0; call < 5; call += 1) {
      await engine.call(chat(upstream.baseUrl));
      await nextTurn();
    }
    const stats = engine.connectionStats();
    assert.deepEqual({ opened: stats.opened, reused: stats.reused, held: stats.heldForIdleCheck }, { opened: 1, reused: 4, held: 0 });
  });

  it('a call on a connection that went idle during the same turn waits for that turn\'s input to be read, then is answered', async () => {
    engine = new UpstreamEngine(30_000, new UpstreamPolicy(null));
    await engine.call(chat(upstream.baseUrl));
    // The continuation of the await runs in the turn where the first answer ended.
    const reply = await engine.call(chat(upstream.baseUrl));
    assert.equal(bodyOf(reply)['object'], 'chat.completion');
    const stats = engine.connectionStats();
    assert.deepEqual({ opened: stats.opened, reused: stats.reused, held: stats.heldForIdleCheck }, { opened: 1, reused: 1, held: 1 });
  });
});

/** A raw HTTP/1.1 upstream that answers `{"answer": n}` and can send an answer nobody asked for. */
interface RawUpstream {
  baseUrl: string;
  server: Server;
  /** Writes a whole extra answer on every open connection. */
  sendUnasked(): void;
  close(): Promise<void>;
}

function startRawUpstream(stray: 'none' | 'same-write'): Promise<RawUpstream> {
  const sockets = new Set<Socket>();
  let answered = 0;
  const response = (body: string) => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nkeep-alive: timeout=30\r\n\r\n${body}`;
  const poison = response('{"answer":"poison"}');
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const headerEnd = pending.indexOf('\r\n\r\n');
        if (headerEnd === -1) return;
        const length = Number(/content-length: (\d+)/i.exec(pending.subarray(0, headerEnd).toString('latin1'))?.[1] ?? 0);
        if (pending.length < headerEnd + 4 + length) return;
        pending = pending.subarray(headerEnd + 4 + length);
        answered += 1;
        const answer = response(JSON.stringify({ answer: answered }));
        if (stray === 'same-write' && answered === 1) socket.write(answer + poison);
        else socket.write(answer);
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        server,
        sendUnasked: () => {
          for (const socket of sockets) socket.write(poison);
        },
        close: () => {
          for (const socket of sockets) socket.destroy();
          return new Promise((done) => server.close(() => done()));
        },
      });
    }),
  );
}

describe('upstream engine: bytes an upstream sends unasked are never an answer', () => {
  let engine: UpstreamEngine;
  afterEach(() => engine.close());

  it('bytes sent on an idle connection close it; the next call opens a new connection and gets its own answer', async () => {
    const upstream = await startRawUpstream('none');
    engine = new UpstreamEngine(30_000, new UpstreamPolicy(null));
    try {
      assert.deepEqual(bodyOf(await engine.call(chat(upstream.baseUrl))), { answer: 1 });
      await nextTurn();
      upstream.sendUnasked();
      const seen = await pollUntil(async () => engine.connectionStats().closedForUnsolicitedBytes, (count) => count === 1, { timeoutMs: 5000, intervalMs: 10 });
      assert.equal(seen.at(-1), 1, 'the idle connection that received unasked bytes was closed');
      assert.deepEqual(bodyOf(await engine.call(chat(upstream.baseUrl))), { answer: 2 });
      assert.equal(engine.connectionStats().opened, 2);
    } finally {
      await upstream.close();
    }
  });

  it('a second answer glued to the first one closes the connection instead of answering the next call', async () => {
    const upstream = await startRawUpstream('same-write');
    engine = new UpstreamEngine(30_000, new UpstreamPolicy(null));
    try {
      assert.deepEqual(bodyOf(await engine.call(chat(upstream.baseUrl))), { answer: 1 });
      await nextTurn();
      assert.deepEqual(bodyOf(await engine.call(chat(upstream.baseUrl))), { answer: 2 });
      assert.equal(engine.connectionStats().opened, 2);
    } finally {
      await upstream.close();
    }
  });

  it('a well-behaved upstream keeps one connection for sequential calls', async () => {
    const upstream = await startRawUpstream('none');
    engine = new UpstreamEngine(30_000, new UpstreamPolicy(null));
    try {
      for (let call = 1; call <= 3; call += 1) {
        assert.deepEqual(bodyOf(await engine.call(chat(upstream.baseUrl))), { answer: call });
        await nextTurn();
      }
      assert.deepEqual([engine.connectionStats().opened, engine.connectionStats().closedForUnsolicitedBytes], [1, 0]);
    } finally {
      await upstream.close();
    }
  });
});
