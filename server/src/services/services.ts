/**
 * The services a request handler may use, built once per server. Handlers reach state only through
 * these services, never through the storage itself.
 */
import type { AuditService } from '../audit/audit-service.js';
import type { BruteForceService } from '../brute-force/brute-force-service.js';
import type { ServerConfig } from '../config.js';
import type { FamilyDefinitionParser } from '../models/family-definition.js';
import type { InferenceService } from '../models/inference-service.js';
import type { MeteredInference } from '../models/metered-inference.js';
import type { ModelService } from '../models/model-service.js';
import type { LogSink } from '../observability/log-buffer.js';
import type { ServerMetrics } from '../observability/metrics.js';
import type { OidcService } from '../oidc/oidc-service.js';
import type { Clock } from '../runtime/clock.js';
import type { ChangeFeed } from '../storage/port/index.js';
import type { KeyService } from './key-service.js';
import type { ManagedDirectory } from './managed-directory.js';
import type { SessionService } from './session-service.js';
import type { UserService } from './user-service.js';
import type { UsageTotalsStore } from '../storage/port/usage.js';

/** Whether the service can do its work now (`GET /status`). */
export interface HealthCheck {
  /** Resolves when the database answers. @throws {StorageUnavailableError} when it does not. */
  ping(): Promise<void>;
}

/** Everything route handlers call. */
export interface Services {
  config: ServerConfig;
  /** The time every service reads. */
  clock: Clock;
  health: HealthCheck;
  /**
   * The storage's change feed, which every cache checks: the request pipeline reads it once per
   * request (`app/guards.ts`) and hands the epochs to the ban list and the authenticator.
   */
  changes: Pick<ChangeFeed, 'current'>;
  users: UserService;
  sessions: SessionService;
  /** Single sign-on, or null when no provider is configured. */
  oidc: OidcService | null;
  keys: KeyService;
  models: ModelService;
  inference: InferenceService;
  /** The model routes' calls: {@link InferenceService} under the callers' usage limits, metered. */
  modelCalls: MeteredInference;
  familyDefinitions: FamilyDefinitionParser;
  /** `{home}/cache`. */
  cache: ManagedDirectory;
  /** `{home}/virtualenv`. */
  virtualenvs: ManagedDirectory;
  /** The server's log destination: recent lines (redacted) for `/v1/cluster/logs`. */
  logSink: LogSink;
  /** Prometheus metrics; the brute-force protection reports bans here. */
  metrics: ServerMetrics;
  bruteForce: BruteForceService;
  /** Search, export and verification of the audit log, and this process's trail (null in benchmarks built without one). */
  audit: AuditService;
  /** Metered usage totals (`GET /v1/usage`; issue 17). */
  usage: UsageTotalsStore;
  /** Writes this process's pending metered calls to {@link usage} (before a usage report). */
  flushUsage: () => Promise<void>;
}
