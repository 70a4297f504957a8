/**
 * Pipeline step 3: errors. Every error becomes the contract's error shape (client errors keep their
 * message; anything else a generic 500, or 503 when the storage cannot be used), unmatched routes a
 * 404, and every response is counted into the metrics (before the audit hook records it).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditContext } from '../audit/request-audit.js';
import { respond, toErrorResponse, type ErrorResponse } from '../http/error-responses.js';
import type { Services } from '../services/services.js';
import type { UiNotFoundPage } from '../ui/web-ui.js';

/** How much of an oversize body is read and discarded before answering 413 (beyond it the connection is cut). */
const OVERSIZE_DISCARD_LIMIT_BYTES = 16 * 1024 * 1024;

/** The request's audit context; requests refused before routing (a malformed URL) never ran the onRequest hook that sets it. */
export function auditContext(request: FastifyRequest): AuditContext {
  return (request.audit ??= { clientIp: request.socket.remoteAddress ?? '' });
}

/** Remembers the error code a response carries, for the audit record. */
export function noteError(request: FastifyRequest, response: ErrorResponse): void {
  auditContext(request).errorCode = response.body.error.code;
}

/** Reads and drops the rest of a request body; resolves when it ended or the connection was cut. */
function discardBody(raw: FastifyRequest['raw'], limit: number): Promise<void> {
  return new Promise((resolve) => {
    let received = 0;
    raw.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) raw.destroy();
    });
    raw.once('end', () => resolve());
    raw.once('close', () => resolve());
    raw.once('error', () => resolve());
  });
}

/** Registers the error handler, the metrics `onResponse` hook and the 404 handler. */
export function registerErrors(app: FastifyInstance, services: Pick<Services, 'metrics'>, uiNotFoundPage: () => UiNotFoundPage | null): void {
  const { metrics } = services;
  app.setErrorHandler((error, request, reply) => {
    const response = toErrorResponse(error, request.log);
    noteError(request, response);
    if (response.status === 401 || response.status === 403) metrics.recordAuthFailure(response.body.error.code);
    const send = () => reply.code(response.status).headers(response.headers).send(response.body);
    // An oversize body is read and discarded (up to a cap) before the 413, so a client still
    // uploading it reads the answer instead of a broken pipe.
    if (response.status === 413 && !request.raw.complete) return discardBody(request.raw, OVERSIZE_DISCARD_LIMIT_BYTES).then(send);
    return send();
  });
  app.addHook('onResponse', (request, reply, done) => {
    metrics.recordRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode);
    done();
  });
  app.setNotFoundHandler(async (request, reply) => {
    const response = respond('not_found', 'No route matches this method and path');
    noteError(request, response);
    // A browser navigating to a path the UI owns gets the app's not-found page (docs/web-ui.md).
    if (await (uiNotFoundPage()?.(request, reply) ?? false)) return reply;
    return reply.code(response.status).send(response.body);
  });
}
