/**
 * A small OpenAI-compatible server for tests and benchmarks: a real HTTP listener on port 0 that
 * answers `/v1/chat/completions` (plain and streamed), `/v1/completions` and `/v1/embeddings`, and
 * can be told to fail (an error status) or to hang. It records what it received.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake upstream answers the next requests. */
export type FakeUpstreamMode = { kind: 'ok' } | { kind: 'error'; status: number; message: string } | { kind: 'hang' } | { kind: 'stall-stream' };

/** One request the fake upstream received. */
export interface ReceivedRequest {
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

/** A running fake upstream. */
export interface FakeUpstream {
  /** Its OpenAI base URL (`http://127.0.0.1:port/v1`). */
  readonly baseUrl: string;
  readonly received: ReceivedRequest[];
  /** Whether requests are kept in {@link FakeUpstream.received}. */
  readonly record: boolean;
  /** Milliseconds every answer waits before it starts, like a model computing. */
  delayMs: number;
  mode: FakeUpstreamMode;
  close(): Promise<void>;
}

const chunkWords = ['Hello', ' from', ' upstream'];

function chatCompletion(model: string): object {
  return {
    id: 'chatcmpl-upstream-1',
    object: 'chat.completion',
    created: 1795255200,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: chunkWords.join('') }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
  };
}

function respondStream(response: ServerResponse, model: string, stallAfterFirst: boolean, includeUsage: boolean): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (delta: object, finish: string | null) =>
    response.write(`data: ${JSON.stringify({ id: 'chatcmpl-upstream-1', object: 'chat.completion.chunk', created: 1795255200, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
  send({ role: 'assistant', content: chunkWords[0] }, null);
  if (stallAfterFirst) return;
  let index = 1;
  const next = () => {
    if (index < chunkWords.length) {
      send({ content: chunkWords[index] }, null);
      index += 1;
      setImmediate(next);
      return;
    }
    send({}, 'stop');
    if (includeUsage) {
      const usage = { prompt_tokens: 1, completion_tokens: chunkWords.length, total_tokens: 1 + chunkWords.length };
      response.write(`data: ${JSON.stringify({ id: 'chatcmpl-upstream-1', object: 'chat.completion.chunk', created: 1795255200, model, choices: [], usage })}\n\n`);
    }
    response.end('data: [DONE]\n\n');
  };
  setImmediate(next);
}

function handle(fake: FakeUpstream, request: IncomingMessage, response: ServerResponse, raw: string): void {
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    // recorded as empty
  }
  const path = request.url ?? '';
  if (fake.record) fake.received.push({ path, authorization: request.headers.authorization, body });
  const mode = fake.mode;
  if (mode.kind === 'hang') return;
  if (mode.kind === 'error') {
    response.writeHead(mode.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: mode.message, type: 'server_error', code: null } }));
    return;
  }
  const model = String(body['model'] ?? '');
  if (path === '/v1/chat/completions') {
    if (body['stream'] === true) return respondStream(response, model, mode.kind === 'stall-stream', (body['stream_options'] as { include_usage?: unknown } | undefined)?.include_usage === true);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(chatCompletion(model)));
    return;
  }
  if (path === '/v1/completions') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ id: 'cmpl-upstream-1', object: 'text_completion', created: 1795255200, model, choices: [{ index: 0, text: 'upstream text', finish_reason: 'stop' }] }));
    return;
  }
  if (path === '/v1/embeddings') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ object: 'list', model, data: [{ object: 'embedding', index: 0, embedding: [0.5, -0.5] }], usage: { prompt_tokens: 1, total_tokens: 1 } }));
    return;
  }
  response.writeHead(404, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: { message: `no route ${path}` } }));
}

/**
 * Starts a fake OpenAI-compatible upstream on 127.0.0.1, port 0.
 *
 * @param options.record - keep every request in `received`. @default true (false for benchmarks)
 * @param options.delayMs - wait this long before answering (a model's compute time). @default 0
 */
export async function startFakeUpstream(options: { record?: boolean; delayMs?: number } = {}): Promise<FakeUpstream> {
  const sockets = new Set<import('node:net').Socket>();
  const fake: FakeUpstream = {
    baseUrl: '',
    received: [],
    record: options.record ?? true,
    delayMs: options.delayMs ?? 0,
    mode: { kind: 'ok' },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer({ keepAlive: true }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      if (fake.delayMs > 0) setTimeout(() => handle(fake, request, response, raw), fake.delayMs);
      else handle(fake, request, response, raw);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  (fake as { baseUrl: string }).baseUrl = `http://127.0.0.1:${port}/v1`;
  return fake;
}
