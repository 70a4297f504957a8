/**
 * The services a request handler may use, built once per server.
 */
import type { AuditTrail } from '../audit/audit-trail.js';
import type { BruteForceService } from '../brute-force/brute-force-service.js';
import type { ServerConfig } from '../config.js';
import type { Storage } from '../storage/storage.js';
import type { KeyService } from './key-service.js';
import type { SessionService } from './session-service.js';
import type { UserService } from './user-service.js';

/** Everything route handlers call. */
export interface Services {
  config: ServerConfig;
  storage: Storage;
  users: UserService;
  sessions: SessionService;
  keys: KeyService;
  bruteForce: BruteForceService;
  /** The audit trail, or null when built without one (benchmarks only). */
  audit: AuditTrail | null;
}
