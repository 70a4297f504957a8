import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request as httpRequest, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'vitest';
import { endConnectionsOnStop } from './end-connections-on-stop.js';

/** A server whose answers wait until `release()`; keep-alive far longer than any test runs. */
async function startHeldServer() {
  const waiting: ServerResponse[] = [];
  const arrived: Array<() => void> = [];
  const server = createServer((_request: IncomingMessage, response: ServerResponse) => {
    waiting.push(response);
    arrived.shift()?.();
  });
  server.keepAliveTimeout = 600_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    nextArrival: () => new Promise<void>((resolve) => (waiting.length > 0 ? resolve() : arrived.push(resolve))),
    release: () => waiting.splice(0).forEach((response) => response.end('done')),
  };
}

function get(port: number, agent: Agent): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ port, host: '127.0.0.1', path: '/', agent }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('endConnectionsOnStop', () => {
  it('answers a request in flight when the stop begins, then closes its keep-alive connection so close() completes', async () => {
    const { server, port, nextArrival, release } = await startHeldServer();
    const beginStop = endConnectionsOnStop(server);
    const agent = new Agent({ keepAlive: true, keepAliveMsecs: 600_000 });
    try {
      const answer = get(port, agent);
      await nextArrival();
      beginStop();
      const closed = once(server, 'close');
      server.close();
      release();
      const { status, connection, body } = await answer;
      assert.equal(status, 200);
      assert.equal(body, 'done', 'the request in flight is answered in full');
      assert.equal(connection, 'close');
      await closed;
    } finally {
      agent.destroy();
    }
  });

  it('closes a connection whose answer had begun before the stop, once that answer ends', async () => {
    let finish: (() => void) | undefined;
    let begin: (() => void) | undefined;
    const begun = new Promise<void>((resolve) => (begin = resolve));
    const server = createServer((_request: IncomingMessage, response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('part ');
      finish = () => response.end('end');
      begin?.();
    });
    server.keepAliveTimeout = 600_000;
    const beginStop = endConnectionsOnStop(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const agent = new Agent({ keepAlive: true, keepAliveMsecs: 600_000 });
    try {
      const answer = get((server.address() as AddressInfo).port, agent);
      await begun;
      beginStop();
      const closed = once(server, 'close');
      server.close();
      finish?.();
      const { status, body } = await answer;
      assert.equal(status, 200);
      assert.equal(body, 'part end', 'the answer in progress is sent in full');
      await closed;
    } finally {
      agent.destroy();
    }
  });

  it('leaves keep-alive alone while the server is not stopping', async () => {
    const { server, port, nextArrival, release } = await startHeldServer();
    endConnectionsOnStop(server);
    const agent = new Agent({ keepAlive: true, keepAliveMsecs: 600_000 });
    try {
      const answer = get(port, agent);
      await nextArrival();
      release();
      assert.equal((await answer).connection, 'keep-alive');
    } finally {
      agent.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
