/**
 * A graceful stop that does not wait on keep-alive connections. `server.close()` ends the
 * connections that are idle when it is called, but a connection that carries a request at that
 * moment stays open after its answer for as long as the client keeps it alive (Fastify's
 * `keepAliveTimeout`: 72 s), so the stop of a busy server outlasted its grace period and ended in
 * SIGKILL. Once stopping, every request in flight is answered with `Connection: close` (when its
 * headers are not sent yet) and its connection ended as soon as the answer is complete.
 */
import type { Server, ServerResponse } from 'node:http';

/**
 * Watches `server`'s requests; call the function it returns when the stop begins (before or after
 * `server.close()`), and connections busy at that moment close once their answers are sent.
 *
 * @example
 * const beginStop = endConnectionsOnStop(app.server);
 * process.once('SIGTERM', () => { beginStop(); void app.close().then(() => process.exit(0)); });
 */
export function endConnectionsOnStop(server: Server): () => void {
  const inFlight = new Set<ServerResponse>();
  let stopping = false;
  server.on('request', (request, response) => {
    inFlight.add(response);
    if (stopping) response.shouldKeepAlive = false;
    response.once('close', () => {
      inFlight.delete(response);
      if (stopping) request.socket.end();
    });
  });
  return () => {
    stopping = true;
    for (const response of inFlight) if (!response.headersSent) response.shouldKeepAlive = false;
  };
}
