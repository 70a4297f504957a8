/**
 * Builds the server: storage, secrets, services and a Fastify instance whose routes are the
 * contract's operations. `buildApp` never listens; `bin/svc-local` does.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { Authenticator } from './auth/authenticator.js';
import { holdsAny, type Permission } from './auth/permissions.js';
import { anonymousPrincipal, type Principal } from './auth/principal.js';
import { ConfigError, type ServerConfig } from './config.js';
import { operationSpecs, type OperationSpec } from './contract/contract.js';
import type { Handlers, UntypedHandler } from './contract/handlers.js';
import { SchemaCompiler } from './contract/schema-compiler.js';
import { AccessTokens } from './crypto/access-tokens.js';
import { KeyEncryption } from './crypto/key-encryption.js';
import { ApiError } from './errors.js';
import { answerClientError } from './http/client-errors.js';
import { respond, toErrorResponse } from './http/error-responses.js';
import { authHandlers } from './routes/auth-routes.js';
import { healthHandlers } from './routes/health-routes.js';
import { keyHandlers } from './routes/key-routes.js';
import { setupHandlers } from './routes/setup-routes.js';
import { userHandlers } from './routes/user-routes.js';
import { registerWebUi } from './ui/web-ui.js';
import { resolveSecret } from './secrets.js';
import { KeyService } from './services/key-service.js';
import { SessionService } from './services/session-service.js';
import type { Services } from './services/services.js';
import { UserService } from './services/user-service.js';
import { Storage } from './storage/storage.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** Options that are not configuration: how the process around the app wants it built. */
export interface AppOptions {
  /** Fastify's logger option. @default false */
  logger?: FastifyServerOptions['logger'];
}

/** Query parameters that would carry a credential; refused so secrets never sit in URLs or logs. */
const credentialQueryParameters = ['access_token', 'api_key', 'apikey', 'token', 'refresh_token', 'jwt'];
const BODY_LIMIT_BYTES = 64 * 1024;

/** The caller of a public route while authentication is on: nobody, holding nothing. */
const unauthenticated: Principal = Object.freeze({ authType: 'none', user: null, apiKey: null, permissions: new Set<Permission>() });

/**
 * Builds the app for `config`: opens (and migrates) the database, loads or creates the secrets and
 * binds every contract operation to its handler.
 *
 * @throws {ConfigError} when a secret cannot be used.
 */
export async function buildApp(config: ServerConfig, options: AppOptions = {}): Promise<FastifyInstance> {
  const storage = Storage.open(config.databasePath);
  try {
    const services = createServices(config, storage);
    const app = Fastify({
      logger: options.logger ?? false,
      bodyLimit: BODY_LIMIT_BYTES,
      // Per-request log lines are off: the audit trail records requests, the log records faults.
      logController: new LogController({ disableRequestLogging: true }),
      genReqId: () => randomUUID(),
      // Only the contract's operations exist: no implicit HEAD twins of GET routes.
      exposeHeadRoutes: false,
      routerOptions: { maxParamLength: 256 },
      frameworkErrors: (error, request, reply) => {
        const response = toErrorResponse(error, request.log);
        void (reply as FastifyReply).code(response.status).headers(response.headers).send(response.body);
      },
      clientErrorHandler: answerClientError,
    });
    app.decorateRequest('principal', null);
    app.removeContentTypeParser('text/plain');
    registerErrorHandling(app);
    registerRoutes(app, services, new Authenticator(storage, services.accessTokens));
    await registerWebUi(app, config.frontend, app.log);
    app.addHook('onClose', () => storage.close());
    await app.ready();
    return app;
  } catch (error) {
    storage.close();
    throw error;
  }
}

function createServices(config: ServerConfig, storage: Storage): Services & { accessTokens: AccessTokens } {
  const jwtSecret = resolveSecret(config.jwtSecret, { label: 'JWT signing secret', mayGenerate: true });
  const storedKeys = storage.apiKeys.count();
  const encryptionSecret = resolveSecret(config.encryptionKey, {
    label: 'API key encryption key',
    mayGenerate: storedKeys === 0,
    missingReason:
      `${storedKeys} API keys are stored encrypted with it. Restore the file, or set SVC_AUTH_ENCRYPTION_KEY to a new key ` +
      '(existing keys keep authenticating but can no longer be revealed)',
  });
  if (jwtSecret === encryptionSecret) {
    throw new ConfigError('the JWT signing secret and the API key encryption key must differ');
  }
  const accessTokens = new AccessTokens(jwtSecret, config.accessTokenTtlSeconds);
  return {
    config,
    storage,
    accessTokens,
    users: new UserService(storage, config),
    sessions: new SessionService(storage, accessTokens, config),
    keys: new KeyService(storage, new KeyEncryption(encryptionSecret)),
  };
}

function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const response = toErrorResponse(error, request.log);
    return reply.code(response.status).headers(response.headers).send(response.body);
  });
  app.setNotFoundHandler((_request, reply) => {
    const response = respond('not_found', 'No route matches this method and path');
    return reply.code(response.status).send(response.body);
  });
  app.addHook('onRequest', (request, reply, done) => {
    void reply.headers({ 'x-request-id': request.id, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    const query = request.query as Record<string, unknown> | undefined;
    if (query !== undefined && credentialQueryParameters.some((name) => name in query)) {
      return done(new ApiError('credentials_in_query', 'Credentials are never accepted in the URL; send Authorization: Bearer <token> instead'));
    }
    done();
  });
}

function registerRoutes(app: FastifyInstance, services: Services, authenticator: Authenticator): void {
  const handlers: Handlers = {
    ...healthHandlers(services),
    ...setupHandlers(services),
    ...authHandlers(services),
    ...userHandlers(services),
    ...keyHandlers(services),
  };
  const bodyCompiler = new SchemaCompiler({ coerceTypes: false });
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
      onRequest: authorize(spec, services.config, authenticator),
      handler: async (request, reply) => {
        const result = await handler({
          body: request.body,
          params: request.params,
          query: request.query,
          principal: request.principal ?? unauthenticated,
          request,
          reply,
        });
        if (result.headers !== undefined) void reply.headers(result.headers);
        void reply.code(result.status);
        return result.status === 204 ? reply.send() : result.body;
      },
    });
  }
}

/**
 * The route's `onRequest` hook: authenticates and checks the operation's permissions. Callback
 * style, so a request whose credential was seen before is authorised without a promise.
 */
function authorize(spec: OperationSpec, config: ServerConfig, authenticator: Authenticator) {
  const admit = (request: FastifyRequest, principal: Principal): void => {
    if (!holdsAny(principal.permissions, spec.requiredPermissions)) {
      throw new ApiError('permission_denied', `Missing permission: ${spec.requiredPermissions.join(' or ')}`);
    }
    request.principal = principal;
  };
  return function authorizeRequest(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
    if (!config.authEnabled) {
      request.principal = anonymousPrincipal;
      return done();
    }
    if (spec.isPublic) return done();
    try {
      const principal = authenticator.authenticate(request.headers.authorization);
      if (principal instanceof Promise) {
        principal.then((resolved) => admit(request, resolved)).then(() => done(), done);
        return;
      }
      admit(request, principal);
    } catch (error) {
      return done(error as Error);
    }
    done();
  };
}
