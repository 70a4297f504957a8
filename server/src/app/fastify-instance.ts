/**
 * Pipeline step 1: the Fastify instance: its options (trusted proxies, body limit, request ids, no
 * implicit HEAD routes, no per-request log lines), the request decorations and the content types.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyReply } from 'fastify';
import type { AuditContext } from '../audit/request-audit.js';
import type { Principal } from '../auth/principal.js';
import type { BanStatus } from '../brute-force/brute-force-service.js';
import type { Epochs } from '../storage/port/index.js';
import { answerClientError } from '../http/client-errors.js';
import type { TrustFunction } from '../http/client-ip.js';
import { toErrorResponse } from '../http/error-responses.js';
import type { LogSink } from '../observability/log-buffer.js';
import { noteError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** The ban on the client's address, if any: it stops guesses, not live credentials (see `authorize`). */
    ipBan: BanStatus | null;
    /**
     * The change feed's epochs, read once for this request by the guard (null while authentication
     * is off); the ban list and the authenticator both decide by them.
     */
    epochs: Epochs | Promise<Epochs> | null;
    /** Facts for this request's audit record; handlers may add to it (see {@link AuditContext}). */
    audit: AuditContext;
  }
}

const BODY_LIMIT_BYTES = 64 * 1024;

/** Creates the instance; its logger writes to `logSink` at `level`. */
export function createFastifyInstance(options: { trust: TrustFunction; logSink: LogSink; level: string }): FastifyInstance {
  const app = Fastify({
    trustProxy: options.trust,
    logger: { level: options.level, stream: options.logSink },
    bodyLimit: BODY_LIMIT_BYTES,
    // Per-request log lines are off: the audit trail records requests, the log records faults.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    // Only the contract's operations exist: no implicit HEAD twins of GET routes.
    exposeHeadRoutes: false,
    routerOptions: { maxParamLength: 256 },
    frameworkErrors: (error, request, reply) => {
      const response = toErrorResponse(error, request.log);
      noteError(request, response);
      void (reply as FastifyReply).code(response.status).headers(response.headers).send(response.body);
    },
    clientErrorHandler: answerClientError,
  });
  app.decorateRequest('principal', null);
  app.decorateRequest('ipBan', null);
  app.decorateRequest('epochs', null);
  app.decorateRequest('audit', null as unknown as AuditContext);
  app.removeContentTypeParser('text/plain');
  return app as unknown as FastifyInstance;
}
