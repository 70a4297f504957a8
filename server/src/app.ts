/**
 * Builds the server: storage, secrets, services and a Fastify instance whose routes are the
 * contract's operations. `buildApp` never listens; `bin/svc-local` does.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { AuditTrail } from './audit/audit-trail.js';
import { requestEntry, type AuditContext } from './audit/request-audit.js';
import { Authenticator, bearerCredential, RevokedCredentialError } from './auth/authenticator.js';
import { BruteForceService, type BanStatus, type BruteForceListener } from './brute-force/brute-force-service.js';
import { credentialId } from './brute-force/credential-id.js';
import { apiKeyDigest } from './crypto/api-key-format.js';
import { holdsAny, type Permission } from './auth/permissions.js';
import { anonymousPrincipal, type Principal } from './auth/principal.js';
import { ConfigError, type ServerConfig } from './config.js';
import { operationSpecs, type OperationSpec } from './contract/contract.js';
import type { Handlers, UntypedHandler } from './contract/handlers.js';
import { SchemaCompiler } from './contract/schema-compiler.js';
import { AccessTokens } from './crypto/access-tokens.js';
import { KeyEncryption } from './crypto/key-encryption.js';
import { UsernameMarker } from './crypto/username-marker.js';
import { ApiError } from './errors.js';
import { answerClientError } from './http/client-errors.js';
import { registerCors } from './http/cors.js';
import { clientIp, trustedProxyFunction, type TrustFunction } from './http/client-ip.js';
import { isLoopback } from './http/ip-address.js';
import { respond, toErrorResponse, type ErrorResponse } from './http/error-responses.js';
import { auditHandlers } from './routes/audit-routes.js';
import { securityHandlers } from './routes/security-routes.js';
import { authHandlers } from './routes/auth-routes.js';
import { healthHandlers, SERVICE_VERSION } from './routes/health-routes.js';
import { keyBanHandlers } from './routes/key-ban-routes.js';
import { keyHandlers } from './routes/key-routes.js';
import { oidcHandlers } from './routes/oidc-routes.js';
import { OidcService } from './oidc/oidc-service.js';
import { setupHandlers } from './routes/setup-routes.js';
import { userHandlers } from './routes/user-routes.js';
import { usageHandlers } from './routes/usage-routes.js';
import { systemClock } from './runtime/clock.js';
import { immediateGate, SqliteUsageStore } from './storage/sqlite/usage-store.js';
import { registerWebUi, type UiNotFoundPage } from './ui/web-ui.js';
import { resolveSecret } from './secrets.js';
import { FamilyDefinitionParser } from './models/family-definition.js';
import { InferenceService } from './models/inference-service.js';
import { ModelService } from './models/model-service.js';
import { UpstreamEngine } from './models/upstream-engine.js';
import { parseUpstreamAllowList, UpstreamPolicy } from './models/upstream-policy.js';
import { LogSink } from './observability/log-buffer.js';
import { ServerMetrics } from './observability/metrics.js';
import { inferenceHandlers } from './routes/inference-routes.js';
import { modelHandlers } from './routes/model-routes.js';
import { operationsHandlers } from './routes/operations-routes.js';
import { KeyService } from './services/key-service.js';
import { ManagedDirectory } from './services/managed-directory.js';
import { SessionService } from './services/session-service.js';
import type { Services } from './services/services.js';
import { UserService } from './services/user-service.js';
import { Storage } from './storage/storage.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** The ban on the client's address, if any: it stops guesses, not live credentials (see `authorize`). */
    ipBan: BanStatus | null;
    /** Facts for this request's audit record; handlers may add to it (see {@link AuditContext}). */
    audit: AuditContext;
  }
}

/** Options that are not configuration: how the process around the app wants it built. */
export interface AppOptions {
  /**
   * Where log lines also go besides the in-memory buffer of `/v1/cluster/logs`: `{ level }` echoes
   * them (redacted) to stdout at that level; false keeps them in the buffer only, at `info`. @default false
   */
  logger?: false | true | { level?: string };
  /** Collect the process's own metrics (CPU, memory, event loop) into `/metrics`. @default true */
  processMetrics?: boolean;
  /**
   * @internal Benchmarks only: build without the audit trail, to measure what it costs. Not
   * configuration: no environment variable or option of `svc-local` reaches it.
   */
  withoutAuditForBenchmark?: boolean;
  /**
   * Hear of every ban, lockout, unban and unlock this process makes.
   * Inside the app, `services.bruteForce.addListener(listener)` does the same.
   */
  bruteForceListeners?: readonly BruteForceListener[];
}

/** Failed credentials that count towards a ban: guesses, not a real credential that expired or was disabled. */
const countedCredentialFailures = new Set(['invalid_api_key', 'invalid_token']);
/** Failures of a key that exists, counted only against keys with their own threshold. */
const knownKeyFailures = new Set(['api_key_disabled', 'api_key_expired']);

/**
 * What a session whose account must change its password may do (besides the public routes such as
 * logout): read who it is and change the password (issue 14, H10).
 */
const passwordChangeOperations = new Set(['getMe', 'changeOwnPassword']);

/**
 * The public operations that try a password: a ban on the client's address refuses them. Other
 * public operations (health, setup status, refreshing or ending a session with a 256-bit refresh
 * token) are no guesses and stay open, so a banned address keeps its live sessions.
 */
const guessingOperations = new Set([
  'login',
  'loginLegacy',
  'startBrowserSession',
  'createFirstAdmin',
  // Single sign-on: a guessed state, CLI code or device code is a guess too (docs/sso.md).
  'completeOidcLogin',
  'exchangeOidcCliCode',
  'completeOidcDeviceLogin',
]);

/** Query parameters that would carry a credential; refused so secrets never sit in URLs or logs. */
const credentialQueryParameters = ['access_token', 'api_key', 'apikey', 'token', 'refresh_token', 'jwt'];
const BODY_LIMIT_BYTES = 64 * 1024;
/** How much of an oversize body is read and discarded before answering 413 (beyond it the connection is cut). */
const OVERSIZE_DISCARD_LIMIT_BYTES = 16 * 1024 * 1024;

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
  const echo = options.logger !== undefined && options.logger !== false;
  const logSink = new LogSink({ echo: echo ? process.stdout : null });
  const level = typeof options.logger === 'object' ? (options.logger.level ?? 'info') : 'info';
  let services: ReturnType<typeof createServices> | undefined;
  try {
    // One compiler for request bodies and for model family definitions sent as JSON text.
    const bodyCompiler = new SchemaCompiler({ coerceTypes: false });
    services = createServices(config, storage, logSink, options, bodyCompiler);
    for (const listener of options.bruteForceListeners ?? []) services.bruteForce.addListener(listener);
    const trust = trustedProxyFunction(config.trustedProxies);
    const app = Fastify({
      trustProxy: trust,
      logger: { level, stream: logSink },
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
    app.decorateRequest('audit', null as unknown as AuditContext);
    app.removeContentTypeParser('text/plain');
    await registerCors(app, config.corsOrigins);
    let uiNotFoundPage: UiNotFoundPage | null = null;
    registerErrorHandling(app, services, trust, () => uiNotFoundPage);
    registerRoutes(app, services, new Authenticator(storage, services.accessTokens), bodyCompiler);
    registerAudit(app, services);
    uiNotFoundPage = await registerWebUi(app, config.frontend, app.log);
    const { audit, upstream } = services;
    app.addHook('onClose', async () => {
      await audit?.close();
      upstream.close();
      storage.close();
    });
    await app.ready();
    return app;
  } catch (error) {
    await services?.audit?.close();
    storage.close();
    throw error;
  }
}

function createServices(
  config: ServerConfig,
  storage: Storage,
  logSink: LogSink,
  options: AppOptions,
  bodyCompiler: SchemaCompiler,
): Services & { accessTokens: AccessTokens; upstream: UpstreamEngine } {
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
  logSink.redactor.addSecret(jwtSecret);
  logSink.redactor.addSecret(encryptionSecret);
  const accessTokens = new AccessTokens(jwtSecret, config.accessTokenTtlSeconds);
  const encryption = new KeyEncryption(encryptionSecret);
  const upstreamPolicy = new UpstreamPolicy(config.upstreamAllowed === null ? null : parseUpstreamAllowList(config.upstreamAllowed));
  const models = new ModelService(storage, encryption, logSink.redactor, upstreamPolicy);
  const upstream = new UpstreamEngine(config.upstreamTimeoutMs, upstreamPolicy);
  const bruteForce = new BruteForceService(storage);
  const withAudit = options.withoutAuditForBenchmark !== true;
  const audit = withAudit ? new AuditTrail(storage.audit, config.auditRetentionDays, { thread: true, databasePath: config.databasePath }) : null;
  if (audit !== null) bruteForce.addListener(audit);
  const metrics = new ServerMetrics({
    processMetrics: options.processMetrics ?? true,
    countActiveBans: (kind) => bruteForce.activeBans(kind).length,
  });
  bruteForce.addListener(banMetrics(metrics));
  const sessions = new SessionService(storage, accessTokens, config, bruteForce, new UsernameMarker(jwtSecret));
  if (config.oidc?.clientSecret != null) logSink.redactor.addSecret(config.oidc.clientSecret);
  return {
    config,
    storage,
    accessTokens,
    upstream,
    users: new UserService(storage, config),
    sessions,
    oidc: config.oidc === null ? null : new OidcService(config.oidc, storage, sessions, audit),
    keys: new KeyService(storage, encryption),
    models,
    inference: new InferenceService(models, upstream),
    familyDefinitions: new FamilyDefinitionParser(bodyCompiler),
    cache: new ManagedDirectory(config.cacheDirectory, 'cache entry'),
    virtualenvs: new ManagedDirectory(config.virtualenvDirectory, 'virtual environment'),
    logSink,
    metrics,
    bruteForce,
    audit,
  };
}

/** Counts bans, lockouts, unbans and unlocks into the Prometheus metrics. */
function banMetrics(metrics: ServerMetrics): BruteForceListener {
  return {
    onBruteForceEvent(event) {
      if (event.action === 'ban') metrics.recordBan(event.scope);
      else metrics.recordUnban(event.scope);
    },
  };
}

/** The request's audit context; requests refused before routing (a malformed URL) never ran the onRequest hook that sets it. */
function auditContext(request: FastifyRequest): AuditContext {
  return (request.audit ??= { clientIp: request.socket.remoteAddress ?? '' });
}

/** Remembers the error code a response carries, for the audit record. */
function noteError(request: FastifyRequest, response: ErrorResponse): void {
  auditContext(request).errorCode = response.body.error.code;
}

/** The 429 a banned caller gets, with the `Retry-After` the ban leaves. */
function bannedError(ban: BanStatus): ApiError {
  const from = ban.scope === 'ip' ? 'from this address' : 'with this credential';
  return new ApiError(ban.scope === 'ip' ? 'ip_banned' : 'key_banned', `Too many failed attempts ${from}; try again in ${ban.retryAfterSeconds} seconds`, {
    headers: { 'retry-after': String(ban.retryAfterSeconds) },
  });
}

/**
 * Warns once (one log line) when the server listens on a non-loopback address, trusts no proxy
 * and a request arrives with forwarded headers: it then sits behind a proxy whose clients all
 * share the proxy's address, and one user's typos ban everybody.
 */
function forwardedHeaderWarning(app: FastifyInstance, config: ServerConfig): (request: FastifyRequest) => void {
  let warned = config.trustedProxies.length > 0;
  return (request) => {
    if (warned) return;
    const headers = request.headers;
    if (headers['x-forwarded-for'] === undefined && headers['x-real-ip'] === undefined && headers['forwarded'] === undefined) return;
    const listening = app.server.address();
    if (listening === null || typeof listening === 'string' || isLoopback(listening.address)) return;
    warned = true;
    app.log.warn(
      `forwarded headers (X-Forwarded-For, X-Real-IP or Forwarded) arrive but SVC_TRUSTED_PROXIES is not set: every client behind the proxy shares one address, so one client's failures ban them all; set SVC_TRUSTED_PROXIES to the proxy's address`,
    );
  };
}

/** Records every API call when its response is sent, and the start-up. */
function registerAudit(app: FastifyInstance, services: Services): void {
  const audit = services.audit;
  if (audit === null) return;
  audit.useLogger(app.log);
  app.addHook('onResponse', (request, reply, done) => {
    if (auditContext(request).record !== false) audit.enqueue(requestEntry(request, reply));
    done();
  });
  audit.recordEvent({
    event_type: 'startup',
    action: 'server.start',
    status: 'success',
    details: { pid: process.pid, version: SERVICE_VERSION, authentication: services.config.authEnabled },
  });
  audit.startPruning();
}

function registerErrorHandling(app: FastifyInstance, services: Services, trust: TrustFunction, uiNotFoundPage: () => UiNotFoundPage | null): void {
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
  const { bruteForce, config } = services;
  const warnForwardedHeaders = forwardedHeaderWarning(app, config);
  app.addHook('onRequest', (request, reply, done) => {
    void reply.headers({ 'x-request-id': request.id, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    request.audit = { clientIp: clientIp(request, trust) };
    warnForwardedHeaders(request);
    // A ban stops guessing, not the people behind the address who are signed in: it is enforced
    // per operation in `authorize` (logins, and credentials that fail), never on a live credential.
    if (config.authEnabled) request.ipBan = bruteForce.ipBan(request.audit.clientIp);
    const query = request.query as Record<string, unknown> | undefined;
    if (query !== undefined && credentialQueryParameters.some((name) => name in query)) {
      return done(new ApiError('credentials_in_query', 'Credentials are never accepted in the URL; send Authorization: Bearer <token> instead'));
    }
    done();
  });
}

function registerRoutes(app: FastifyInstance, services: Services, authenticator: Authenticator, bodyCompiler: SchemaCompiler): void {
  const handlers: Handlers = {
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
    // Issue 17: after the storage port lands, `storage.usage` and the injected clock (see the report).
    ...usageHandlers({ usage: new SqliteUsageStore({ read: services.storage.db, write: services.storage.db, gate: immediateGate }), clock: systemClock }),
  };
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

/**
 * The route's `onRequest` hook: authenticates and checks the operation's permissions. Callback
 * style, so a request whose credential was seen before is authorised without a promise.
 */
function authorize(spec: OperationSpec, services: Services, authenticator: Authenticator) {
  const { config, bruteForce } = services;
  /** Sets the request's principal; answers the 403 when it lacks the operation's permissions. */
  const admit = (request: FastifyRequest, principal: Principal): ApiError | undefined => {
    request.principal = principal;
    if (principal.authType === 'jwt' && principal.user?.mustChangePassword === true && !passwordChangeOperations.has(spec.operationId)) {
      return new ApiError('password_change_required', 'This account must change its password first: PUT /v1/auth/me/password, then continue');
    }
    if (holdsAny(principal.permissions, spec.requiredPermissions)) return undefined;
    return new ApiError('permission_denied', `Missing permission: ${spec.requiredPermissions.join(' or ')}`);
  };
  /** Counts a guessed credential against the client IP and the (IP, credential) pair. */
  const countFailure = (request: FastifyRequest, error: unknown): void => {
    const credential = bearerCredential(request.headers.authorization);
    if (credential === null) return;
    request.audit.attemptedAuthType = credential.startsWith('sk-') ? 'api_key' : 'jwt';
    if (error instanceof ApiError && countedCredentialFailures.has(error.code) && !(error instanceof RevokedCredentialError)) {
      const keyId = credentialId(credential);
      request.audit.target ??= keyId;
      try {
        bruteForce.recordCredentialFailure(request.audit.clientIp, keyId);
      } catch (countingError) {
        // The answer stays the 401 the credential earned (R22: a malformed key needs no database).
        request.log.error({ err: countingError }, 'could not count a failed credential');
      }
    } else if (error instanceof ApiError && knownKeyFailures.has(error.code)) {
      const keyId = credentialId(credential);
      try {
        bruteForce.recordKnownKeyFailure(request.audit.clientIp, keyId, apiKeyDigest(credential));
      } catch (countingError) {
        request.log.error({ err: countingError }, 'could not count a failed API key');
      }
    }
  };
  return function authorizeRequest(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
    request.audit.operation = spec;
    if (!config.authEnabled) {
      request.principal = anonymousPrincipal;
      return done();
    }
    const ipBan = request.ipBan;
    if (spec.isPublic) return done(ipBan !== null && guessingOperations.has(spec.operationId) ? bannedError(ipBan) : undefined);
    const header = request.headers.authorization;
    if (bruteForce.hasKeyBans()) {
      const credential = bearerCredential(header);
      const ban = credential === null ? null : bruteForce.keyBan(request.audit.clientIp, credentialId(credential));
      if (ban !== null) return done(bannedError(ban));
    }
    /** A credential that fails from a banned address gets the ban's 429, a live one passes. */
    const refuse = (error: unknown): Error => {
      countFailure(request, error);
      return ipBan !== null && error instanceof ApiError && error.status === 401 ? bannedError(ipBan) : (error as Error);
    };
    let principal: Principal | Promise<Principal>;
    try {
      principal = authenticator.authenticate(header);
    } catch (error) {
      return done(refuse(error));
    }
    if (principal instanceof Promise) {
      principal.then(
        (resolved) => done(admit(request, resolved)),
        (error: unknown) => done(refuse(error)),
      );
      return;
    }
    done(admit(request, principal));
  };
}
