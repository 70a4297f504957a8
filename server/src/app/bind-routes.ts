/**
 * Pipeline step 6: binds every contract operation to its handler, with its schemas (validated with
 * the contract's compilers) and its `authorize` hook.
 */
import type { FastifyInstance } from 'fastify';
import type { Authenticator } from '../auth/authenticator.js';
import { operationSpecs } from '../contract/contract.js';
import type { Handlers, UntypedHandler } from '../contract/handlers.js';
import { SchemaCompiler } from '../contract/schema-compiler.js';
import { auditHandlers } from '../routes/audit-routes.js';
import { authHandlers } from '../routes/auth-routes.js';
import { healthHandlers } from '../routes/health-routes.js';
import { inferenceHandlers } from '../routes/inference-routes.js';
import { keyBanHandlers } from '../routes/key-ban-routes.js';
import { keyHandlers } from '../routes/key-routes.js';
import { modelHandlers } from '../routes/model-routes.js';
import { oidcHandlers } from '../routes/oidc-routes.js';
import { operationsHandlers } from '../routes/operations-routes.js';
import { securityHandlers } from '../routes/security-routes.js';
import { setupHandlers } from '../routes/setup-routes.js';
import { usageHandlers } from '../routes/usage-routes.js';
import { userHandlers } from '../routes/user-routes.js';
import type { Services } from '../services/services.js';
import { authorize, unauthenticated } from './authorize.js';

/** Every operation's handler. */
function allHandlers(services: Services): Handlers {
  return {
    ...healthHandlers(services),
    ...setupHandlers(services),
    ...authHandlers(services),
    ...oidcHandlers(services),
    ...userHandlers(services),
    ...keyHandlers(services),
    ...keyBanHandlers(services),
    ...modelHandlers(services),
    ...inferenceHandlers(services),
    ...operationsHandlers(services),
    ...securityHandlers(services),
    ...auditHandlers(services),
    ...usageHandlers({ usage: services.usage, clock: services.clock, flush: services.flushUsage }),
  };
}

/** Registers one route per contract operation. */
export function bindRoutes(app: FastifyInstance, services: Services, authenticator: Authenticator, bodyCompiler: SchemaCompiler): void {
  const handlers = allHandlers(services);
  const parameterCompiler = new SchemaCompiler({ coerceTypes: true });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyCompiler : parameterCompiler).compile(schema as Record<string, unknown>),
  );
  for (const spec of operationSpecs) {
    const handler = handlers[spec.operationId] as UntypedHandler;
    const schema: Record<string, unknown> = {};
    if (spec.body !== null) schema['body'] = spec.body;
    if (spec.params !== null) schema['params'] = spec.params;
    if (spec.query !== null) schema['querystring'] = spec.query;
    app.route({
      method: spec.method,
      url: spec.routePath,
      schema,
      ...(spec.bodyLimit === null ? {} : { bodyLimit: spec.bodyLimit }),
      onRequest: authorize(spec, services, authenticator),
      handler: async (request, reply) => {
        const result = await handler({
          body: request.body,
          params: request.params,
          query: request.query,
          principal: request.principal ?? unauthenticated,
          request,
          reply,
        });
        // A created resource is the target of its audit record.
        if (result.status === 201 && request.audit.target == null) {
          const createdId = (result.body as { id?: unknown } | undefined)?.id;
          if (typeof createdId === 'string') request.audit.target = createdId;
        }
        if (result.headers !== undefined) void reply.headers(result.headers);
        void reply.code(result.status);
        if (result.raw !== undefined) return reply.send(result.raw);
        return result.status === 204 || result.status === 302 ? reply.send() : result.body;
      },
    });
  }
}
