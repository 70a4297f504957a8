/**
 * The storage port: the interfaces every svc service uses to reach its state, whichever database
 * holds it. Two adapters implement it: SQLite (`storage/sqlite/`, better-sqlite3, the embedded
 * default) and PostgreSQL (`storage/postgres/`, `pg`, for several hosts). The port owns its record
 * types and imports nothing from `auth/`, `audit/`, `http/` or `generated/`.
 *
 * All times are epoch milliseconds, passed in by the caller from the injected clock; no adapter
 * reads the time itself.
 */
import type { ApiKeyStore } from './api-keys.js';
import type { AuditStore } from './audit.js';
import type { BruteForceStore } from './brute-force.js';
import type { ChangeFeed } from './changes.js';
import type { ModelFamilyStore, ModelStore } from './models.js';
import type { OidcStore } from './oidc.js';
import type { SecretFingerprintStore } from './secret-fingerprints.js';
import type { SessionStore } from './sessions.js';
import type { SettingsStore } from './settings.js';
import type { TableTransfer } from './transfer.js';
import type { UsageStore } from './usage.js';
import type { UserStore } from './users.js';

export type * from './api-keys.js';
export type * from './audit.js';
export type * from './brute-force.js';
export type * from './changes.js';
export type * from './migrations.js';
export type * from './models.js';
export type * from './oidc.js';
export type * from './secret-fingerprints.js';
export type * from './sessions.js';
export type * from './settings.js';
export type * from './usage.js';
export type * from './users.js';
export type * from './transfer.js';
export { bookkeepingTables, transferTables, primaryKeyOf } from './transfer.js';
export { StorageSchemaError, StorageUnavailableError } from './errors.js';

/** Which adapter serves a {@link Storage}. */
export type StorageBackend = 'sqlite' | 'postgres';

/** Everything svc keeps, behind one connection pool (or file). */
export interface Storage {
  readonly backend: StorageBackend;
  readonly users: UserStore;
  readonly keys: ApiKeyStore;
  readonly sessions: SessionStore;
  readonly bruteForce: BruteForceStore;
  readonly settings: SettingsStore;
  readonly models: ModelStore;
  readonly families: ModelFamilyStore;
  readonly oidc: OidcStore;
  readonly audit: AuditStore;
  /** Usage totals and the usage limiters' shared counters (issue 17). */
  readonly usage: UsageStore;
  /** The fingerprints of the secrets the deployment was first started with (migration 040). */
  readonly secretFingerprints: SecretFingerprintStore;
  readonly changes: ChangeFeed;
  /** Whole tables read and written as stored, for moving a deployment between adapters (`svc-migrate-storage`). */
  readonly transfer: TableTransfer;
  /**
   * Runs `work` atomically. SQLite: `BEGIN IMMEDIATE` (locks are no-ops: the whole database is
   * locked). PostgreSQL: READ COMMITTED, the named advisory locks taken first in a fixed order, then
   * `work`; retried as a whole on serialization failures and deadlocks (3 tries), so `work` must
   * have no effect outside the database and must await nothing but `tx`. Callers emit events after
   * it resolves.
   */
  transaction<T>(work: (tx: StorageTx) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** The cheapest round trip that proves the database answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The stores bound to one transaction (one connection). Only here do the {@link RowLock} options
 * and `BruteForceStore.lockCounter` take effect (PostgreSQL: `FOR UPDATE` / `FOR SHARE`; SQLite:
 * nothing to do, `BEGIN IMMEDIATE` already holds the database).
 */
export type StorageTx = Pick<Storage, 'users' | 'keys' | 'sessions' | 'bruteForce' | 'settings' | 'models' | 'families' | 'oidc' | 'secretFingerprints'>;

/** Options of {@link Storage.transaction}. */
export interface TransactionOptions {
  /** Advisory locks for invariants that have no row to lock, taken first, in the order of {@link StorageLock}. */
  locks?: readonly StorageLock[];
}

/** Named locks, always taken in this order: `setup` < `admins` < `settings`. */
export type StorageLock = 'setup' | 'admins' | 'settings';

/** A row lock asked for by a read inside a transaction (ignored outside one). */
export interface RowLock {
  lock?: 'update' | 'share';
}
