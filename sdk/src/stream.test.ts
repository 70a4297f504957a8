import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { setupServer } from 'msw/node';
import { APIUserAbortError, Client, Stream, SvcError, type ChatCompletionChunk } from './index.js';
import { createHandlers } from './mocks/index.js';
import { BASE_URL } from './testing/fixtures.js';

const server = setupServer(...createHandlers({ baseUrl: BASE_URL }));
// Requests to the real servers below pass through msw.
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const client = () => new Client({ baseUrl: BASE_URL, apiKey: 'sk-svc-test' });
const request = { model: 'my-echo', messages: [{ role: 'user' as const, content: 'Hello' }] };
const textOf = (chunks: ChatCompletionChunk[]) => chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

/**
 * A real HTTP server whose chat stream sends `first`, then holds the connection open until the test
 * calls `finish()`; `wasCancelled` resolves when the client closed the connection (an abort or an
 * early break reached the server).
 */
async function heldStream(first: string) {
  let cancelled!: () => void;
  const wasCancelled = new Promise<void>((resolve) => (cancelled = resolve));
  const held: ServerResponse[] = [];
  const real = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: first }, finish_reason: null }] })}\n\n`);
    response.on('close', () => {
      if (!response.writableEnded) cancelled();
    });
    held.push(response);
  });
  await new Promise<void>((resolve) => real.listen(0, '127.0.0.1', resolve));
  const { port } = real.address() as AddressInfo;
  opened.push(real);
  return {
    client: new Client({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sk-svc-test' }),
    wasCancelled,
    finish: () => held.forEach((response) => response.end('data: [DONE]\n\n')),
  };
}

const opened: Server[] = [];
afterAll(async () => {
  await Promise.all(opened.map((real) => new Promise((resolve) => {
    real.closeAllConnections();
    real.close(resolve);
  })));
});

describe('Stream (openai-node style)', () => {
  it('Should be async-iterable once, and say so when iterated again', async () => {
    const stream = client().inference.streamChatCompletion(request);
    assert.ok(stream instanceof Stream);
    assert.equal(textOf(await collect(stream)), 'Hello');
    assert.throws(() => stream[Symbol.asyncIterator](), SvcError);
  });

  it('Should split into two streams with tee(), each yielding every chunk, from one request', async () => {
    let requests = 0;
    server.events.on('request:start', () => (requests += 1));
    try {
      const [left, right] = client().inference.streamChatCompletion(request).tee();
      const leftChunks = await collect(left);
      const rightChunks = await collect(right);
      assert.equal(textOf(leftChunks), 'Hello');
      assert.deepEqual(rightChunks, leftChunks);
      assert.equal(requests, 1);
    } finally {
      server.events.removeAllListeners();
    }
  });

  it('Should turn into a ReadableStream of JSON Lines', async () => {
    const text = await new Response(client().inference.streamChatCompletion(request).toReadableStream()).text();
    const lines = text.trimEnd().split('\n').map((line) => JSON.parse(line) as ChatCompletionChunk);
    assert.equal(textOf(lines), 'Hello');
    assert.ok(text.endsWith('\n'));
  });

  it('Should end quietly when controller.abort() is called mid-stream, and let go of the body', async () => {
    const { client: held, wasCancelled } = await heldStream('first');
    const stream = held.inference.streamChatCompletion(request);
    const received: string[] = [];
    for await (const chunk of stream) {
      received.push(chunk.choices[0]?.delta.content ?? '');
      stream.controller.abort();
    }
    assert.deepEqual(received, ['first']);
    assert.ok(stream.controller.signal.aborted);
    await wasCancelled;
  });

  it('Should abort the request when the loop is left early', async () => {
    const { client: held, wasCancelled } = await heldStream('only');
    const stream = held.inference.streamChatCompletion(request);
    for await (const chunk of stream) {
      assert.equal(chunk.choices[0]?.delta.content, 'only');
      break;
    }
    assert.ok(stream.controller.signal.aborted);
    await wasCancelled;
  });

  it('Should throw APIUserAbortError when the caller’s signal fired before the answer', async () => {
    const stream = client().inference.streamChatCompletion(request, { signal: AbortSignal.abort() });
    await assert.rejects(collect(stream), APIUserAbortError);
  });

  it('Should end when the caller’s signal fires mid-stream', async () => {
    const { client: held, wasCancelled, finish } = await heldStream('first');
    const caller = new AbortController();
    const received: string[] = [];
    for await (const chunk of held.inference.streamChatCompletion(request, { signal: caller.signal })) {
      received.push(chunk.choices[0]?.delta.content ?? '');
      caller.abort();
    }
    await wasCancelled;
    finish();
    assert.deepEqual(received, ['first']);
  });
});
