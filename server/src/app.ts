/**
 * Builds the server as a pipeline of named steps, in the order a request meets them: storage,
 * the Fastify instance (first, so that composing logs through its logger), the services, error
 * handling, the global guards, the routes (each with its `authorize` hook), the audit hooks and the
 * web UI. `buildApp` never listens; `bin/svc-local` does.
 */
import type { FastifyInstance } from 'fastify';
import { authorize } from './app/authorize.js';
import { registerAuditHooks } from './app/audit-hooks.js';
import { bindRoutes } from './app/bind-routes.js';
import { composeServices, type ComposedServices } from './app/compose-services.js';
import { registerErrors } from './app/errors.js';
import { createFastifyInstance } from './app/fastify-instance.js';
import { registerGuards } from './app/guards.js';
import type { BruteForceListener } from './brute-force/brute-force-service.js';
import type { ServerConfig } from './config.js';
import { SchemaCompiler } from './contract/schema-compiler.js';
import { trustedProxyFunction } from './http/client-ip.js';
import { registerCors } from './http/cors.js';
import { LogSink } from './observability/log-buffer.js';
import { BackgroundWrites } from './runtime/background-writes.js';
import { systemClock, type Clock } from './runtime/clock.js';
import { openStorage, storageConfigOf } from './storage/open-storage.js';
import type { Storage } from './storage/port/index.js';
import { registerWebUi, type UiNotFoundPage } from './ui/web-ui.js';


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
  /**
   * Record this process's secret fingerprints in place of the stored ones: the one start of a
   * deliberate secret rotation (`svc-local --replace-secret-fingerprints`). @default false
   */
  replaceSecretFingerprints?: boolean;
  /** The time every service reads; tests pass a `ManualClock`. @default systemClock */
  clock?: Clock;
  /**
   * Fail a storage transaction whose work awaited something other than its stores, instead of
   * logging a warning (the testing helpers turn it on). @default false
   */
  strictStorageTransactions?: boolean;
  /**
   * Where the best-effort writes no request waits for (a key's `last_used_at`) are tracked; shutdown
   * waits for them. Tests pass their own to wait for what those writes record. @default a new one
   */
  backgroundWrites?: BackgroundWrites;
}

/**
 * Builds the app for `config`: opens (and migrates) the database, loads or creates the secrets and
 * binds every contract operation to its handler.
 *
 * @throws {ConfigError} when a secret cannot be used, or is not the one the database was first started with.
 */
export async function buildApp(config: ServerConfig, options: AppOptions = {}): Promise<FastifyInstance> {
  const clock = options.clock ?? systemClock;
  const storage = await openStorage(storageConfigOf(config), { strictTransactions: options.strictStorageTransactions === true, now: () => clock.now() });
  const echo = options.logger !== undefined && options.logger !== false;
  const logSink = new LogSink({ echo: echo ? process.stdout : null });
  const level = typeof options.logger === 'object' ? (options.logger.level ?? 'info') : 'info';
  let services: ComposedServices | undefined;
  try {
    // One compiler for request bodies and for model family definitions sent as JSON text.
    const bodyCompiler = new SchemaCompiler({ coerceTypes: false });
    const trust = trustedProxyFunction(config.trustedProxies);
    // First, so that composing already logs through the app's logger.
    const app = createFastifyInstance({ trust, logSink, level });
    services = await composeServices(config, storage, clock, {
      logSink,
      log: app.log,
      bodyCompiler,
      processMetrics: options.processMetrics ?? true,
      withAudit: options.withoutAuditForBenchmark !== true,
      bruteForceListeners: options.bruteForceListeners ?? [],
      backgroundWrites: options.backgroundWrites ?? new BackgroundWrites(),
      replaceSecretFingerprints: options.replaceSecretFingerprints === true,
    });
    await registerCors(app, config.corsOrigins);
    let uiNotFoundPage: UiNotFoundPage | null = null;
    registerErrors(app, services, () => uiNotFoundPage);
    registerGuards(app, services, trust);
    bindRoutes(app, services, services.authenticator, bodyCompiler);
    registerAuditHooks(app, services);
    uiNotFoundPage = await registerWebUi(app, config.frontend, app.log);
    registerUsageUpkeep(app, services);
    registerShutdown(app, services, storage);
    await app.ready();
    return app;
  } catch (error) {
    await services?.audit.trail?.close();
    await storage.close();
    throw error;
  }
}

/** How often this process writes its metered calls when they trickle in (ms). */
const USAGE_FLUSH_INTERVAL_MS = 10_000;
/** How often the usage totals past their retention and the expired limit counters are deleted (ms). */
const USAGE_HOUSEKEEPING_INTERVAL_MS = 3_600_000;

/**
 * While the app runs, the usage meter writes its pending calls every 10 s, and the usage tables are
 * kept bounded at start-up and every hour; closing stops both.
 */
function registerUsageUpkeep(app: FastifyInstance, services: ComposedServices): void {
  // Tracked as background writes: shutdown waits for one in flight before the storage closes.
  const { backgroundWrites } = services;
  const usageFlush = setInterval(() => backgroundWrites.track(services.usageRecorder.flush()), USAGE_FLUSH_INTERVAL_MS);
  usageFlush.unref();
  const housekeeping = () => backgroundWrites.track(services.usageHousekeeping.run());
  housekeeping();
  const usageHousekeeping = setInterval(housekeeping, USAGE_HOUSEKEEPING_INTERVAL_MS);
  usageHousekeeping.unref();
  app.addHook('onClose', () => {
    clearInterval(usageFlush);
    clearInterval(usageHousekeeping);
    return Promise.resolve();
  });
}

/**
 * On close: the best-effort writes finish, the audit trail and the usage meter write what they
 * hold, upstream connections end, then the storage closes.
 */
function registerShutdown(app: FastifyInstance, services: ComposedServices, storage: Storage): void {
  app.addHook('onClose', async () => {
    await services.backgroundWrites.settled();
    await services.audit.trail?.close();
    await services.usageRecorder.flush().catch(() => {});
    services.upstream.close();
    await storage.close();
  });
}
