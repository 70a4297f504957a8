/**
 * Pipeline step 2: the services of one server, over its storage and clock. Loads (or creates) the
 * secrets and checks them against the fingerprints the database recorded, builds every service,
 * and wires the brute-force listeners (audit trail, metrics).
 */
import { AuditService } from '../audit/audit-service.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { Authenticator } from '../auth/authenticator.js';
import { BruteForceService, type BruteForceListener } from '../brute-force/brute-force-service.js';
import { ConfigError, type ServerConfig } from '../config.js';
import type { SchemaCompiler } from '../contract/schema-compiler.js';
import { AccessTokens } from '../crypto/access-tokens.js';
import { KeyEncryption } from '../crypto/key-encryption.js';
import { UsernameMarker } from '../crypto/username-marker.js';
import { FamilyDefinitionParser } from '../models/family-definition.js';
import { InferenceService } from '../models/inference-service.js';
import { MeteredInference } from '../models/metered-inference.js';
import { ModelCallLimits, UsageLimiter, UsageMetrics, UsageRecorder } from '../limits/index.js';
import { UsageHousekeeping } from '../limits/usage-housekeeping.js';
import { ModelService } from '../models/model-service.js';
import { UpstreamEngine } from '../models/upstream-engine.js';
import { parseUpstreamAllowList, UpstreamPolicy } from '../models/upstream-policy.js';
import { OidcService } from '../oidc/oidc-service.js';
import type { FastifyBaseLogger } from 'fastify';
import type { LogSink } from '../observability/log-buffer.js';
import { changeListenerReport } from '../observability/change-listener-report.js';
import { ServerMetrics } from '../observability/metrics.js';
import type { BackgroundWrites } from '../runtime/background-writes.js';
import type { Clock } from '../runtime/clock.js';
import { loadSecret } from '../secrets.js';
import { KeyService } from '../services/key-service.js';
import { ManagedDirectory } from '../services/managed-directory.js';
import type { Services } from '../services/services.js';
import { SessionService } from '../services/session-service.js';
import { UserService } from '../services/user-service.js';
import type { Storage } from '../storage/port/index.js';
import { checkSecretFingerprints } from './secret-fingerprints.js';

/** What composing needs besides the configuration, the storage and the clock. */
export interface CompositionOptions {
  logSink: LogSink;
  /** The app's logger (writing to `logSink`): start-up warnings and background failures go there. */
  log: FastifyBaseLogger;
  /** The compiler of request bodies, shared with model family definitions sent as JSON text. */
  bodyCompiler: SchemaCompiler;
  processMetrics: boolean;
  withAudit: boolean;
  bruteForceListeners: readonly BruteForceListener[];
  /** Where best-effort writes are tracked; shutdown waits for them. */
  backgroundWrites: BackgroundWrites;
  /** Record this process's secret fingerprints in place of the stored ones (a deliberate rotation). */
  replaceSecretFingerprints: boolean;
}

/** The services, plus what only the pipeline itself uses. */
export interface ComposedServices extends Services {
  authenticator: Authenticator;
  upstream: UpstreamEngine;
  backgroundWrites: BackgroundWrites;
  /** This process's metered model calls on their way to the usage totals (flushed on a timer and at shutdown). */
  usageRecorder: UsageRecorder;
  /** Deletes usage totals past their retention and expired limit counters (at start-up and hourly). */
  usageHousekeeping: UsageHousekeeping;
}

/**
 * Builds the services. On SQLite the audit trail writes through its own thread and connection.
 *
 * @throws {ConfigError} when a secret cannot be used.
 */
export async function composeServices(config: ServerConfig, storage: Storage, clock: Clock, options: CompositionOptions): Promise<ComposedServices> {
  const { logSink } = options;
  // Every host of a PostgreSQL deployment must hold the same secrets: they are given, never generated (docs/deployment.md).
  const shared = storage.backend === 'postgres';
  const sharedReason = 'svc on PostgreSQL (SVC_DATABASE_URL) never generates secrets, because every host must use the same ones; set SVC_AUTH_JWT_SECRET_KEY and SVC_AUTH_ENCRYPTION_KEY to the same values on every host';
  // Loaded and checked under the database's write lock: a process that finds a secret file another
  // one just generated also finds the fingerprint that process recorded for it (SQLite; on
  // PostgreSQL secrets are only ever given, so nothing is generated there).
  const warnings: string[] = [];
  const { jwt, encryptionKey } = await storage.transaction(async (tx) => {
    const loadedJwt = loadSecret(config.jwtSecret, { label: 'JWT signing secret', mayGenerate: !shared, missingReason: sharedReason });
    const storedKeys = await tx.keys.count();
    const loadedEncryptionKey = loadSecret(config.encryptionKey, {
      label: 'API key encryption key',
      mayGenerate: !shared && storedKeys === 0,
      missingReason: shared
        ? sharedReason
        : `${storedKeys} API keys are stored encrypted with it. Restore the file, or set SVC_AUTH_ENCRYPTION_KEY to a new key ` +
          '(existing keys keep authenticating but can no longer be revealed)',
    });
    if (loadedJwt.value === loadedEncryptionKey.value) {
      throw new ConfigError('the JWT signing secret and the API key encryption key must differ');
    }
    await checkSecretFingerprints(
      tx.secretFingerprints,
      [
        { name: 'jwt_signing', label: 'JWT signing secret', source: config.jwtSecret, ...loadedJwt },
        { name: 'encryption', label: 'API key encryption key', source: config.encryptionKey, ...loadedEncryptionKey },
      ],
      { replace: options.replaceSecretFingerprints, now: clock.now(), warn: (message) => warnings.push(message) },
    );
    return { jwt: loadedJwt, encryptionKey: loadedEncryptionKey };
  });
  for (const warning of warnings) options.log.warn(warning);
  const jwtSecret = jwt.value;
  const encryptionSecret = encryptionKey.value;
  logSink.redactor.addSecret(jwtSecret);
  logSink.redactor.addSecret(encryptionSecret);
  const accessTokens = new AccessTokens(jwtSecret, config.accessTokenTtlSeconds, clock);
  const encryption = new KeyEncryption(encryptionSecret);
  const upstreamPolicy = new UpstreamPolicy(config.upstreamAllowed === null ? null : parseUpstreamAllowList(config.upstreamAllowed));
  const models = new ModelService(storage, encryption, logSink.redactor, upstreamPolicy, clock);
  const upstream = new UpstreamEngine(config.upstreamTimeoutMs, upstreamPolicy);
  const bruteForce = new BruteForceService(storage, clock);
  const writeMode = storage.backend === 'sqlite' ? { thread: true as const, databasePath: config.databasePath } : { thread: false as const };
  const trail = options.withAudit ? new AuditTrail(storage.audit, config.auditRetentionDays, writeMode, clock, { log: options.log }) : null;
  if (trail !== null) bruteForce.addListener(trail);
  const hasListener = storage.changes.listenerStatus() !== null;
  const metrics = new ServerMetrics({
    processMetrics: options.processMetrics,
    countActiveBans: async (kind) => (await bruteForce.activeBans(kind)).length,
    ...(hasListener ? { changeListener: () => changeListenerReport(storage.changes, clock) } : {}),
  });
  bruteForce.addListener(banMetrics(metrics));
  trail?.onDrop((count) => metrics.recordAuditDropped(count));
  for (const listener of options.bruteForceListeners) bruteForce.addListener(listener);
  const usageRecorder = new UsageRecorder(storage.usage, clock, {
    onError: (error) => options.log.warn({ err: error }, 'usage totals could not be written; they are kept and written later'),
  });
  const usageLimiter = new UsageLimiter(storage.usage.counters, clock);
  const modelCallLimits = new ModelCallLimits(usageLimiter, usageRecorder, clock, { metrics: new UsageMetrics(metrics.registry) });
  const inference = new InferenceService(models, upstream, clock);
  const sessions = new SessionService(storage, accessTokens, config, bruteForce, new UsernameMarker(jwtSecret), clock);
  if (config.oidc?.clientSecret != null) logSink.redactor.addSecret(config.oidc.clientSecret);
  return {
    config,
    clock,
    health: { ping: () => storage.ping() },
    changes: storage.changes,
    authenticator: new Authenticator(storage, accessTokens, clock, options.backgroundWrites),
    upstream,
    backgroundWrites: options.backgroundWrites,
    users: new UserService(storage, config, clock),
    sessions,
    oidc: config.oidc === null ? null : new OidcService(config.oidc, storage, sessions, trail, clock),
    keys: new KeyService(storage, encryption, clock),
    models,
    inference,
    modelCalls: new MeteredInference(inference, modelCallLimits),
    usageRecorder,
    usageHousekeeping: new UsageHousekeeping(storage.usage, usageLimiter, clock, config.usageRetentionDays),
    familyDefinitions: new FamilyDefinitionParser(options.bodyCompiler),
    cache: new ManagedDirectory(config.cacheDirectory, 'cache entry'),
    virtualenvs: new ManagedDirectory(config.virtualenvDirectory, 'virtual environment'),
    logSink,
    metrics,
    bruteForce,
    audit: new AuditService(storage.audit, trail),
    usage: storage.usage,
    flushUsage: () => usageRecorder.flush(),
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
