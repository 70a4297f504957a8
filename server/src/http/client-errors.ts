/**
 * Answers what Node's HTTP parser refuses before Fastify sees a request (a control character in a
 * header, broken framing, a request line that is not HTTP, an oversized header block, a request too
 * slow to arrive) in the contract's error shape, then closes the connection.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError } from 'fastify';
import { respond } from './error-responses.js';

/** Fastify's `clientErrorHandler`. */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, body } =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? respond('request_headers_too_large', 'The request headers are too large')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? respond('request_timeout', 'The request did not arrive in time')
        : respond('invalid_request', 'The request is not well-formed HTTP');
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}
