/**
 * Picks the storage adapter for a configuration. The only module that knows both adapters: the
 * server, the offline tools and the tests open storage here.
 */
import type { ServerConfig } from '../config.js';
import { systemClock, type Clock } from '../runtime/clock.js';
import { StorageUnavailableError, type Storage } from './port/index.js';
import { isNotReadyYet } from './postgres/errors.js';
import { openPostgresStorage } from './postgres/postgres-storage.js';
import { SqliteStorage } from './sqlite/sqlite-storage.js';

/** Where svc keeps its state. */
export type StorageConfig =
  /** One SQLite file (`SVC_HOME/auth/auth.db` unless `SVC_AUTH_DB_PATH` says otherwise). */
  | { kind: 'sqlite'; path: string }
  /** A PostgreSQL database shared by every process of the deployment (`SVC_DATABASE_URL`). */
  | { kind: 'postgres'; url: string; poolMax: number };

/** How to open it. */
export interface OpenStorageOptions {
  /** SQLite: fail a transaction whose work awaited something other than its stores (tests) instead of warning. */
  strictTransactions?: boolean;
  /** PostgreSQL: hears of lost connections and listener outages (for the log). */
  onWarning?: (message: string, error?: unknown) => void;
  /** PostgreSQL: the time (epoch ms) the change listener stamps notifications with (the server's clock). @default Date.now */
  now?: () => number;
  /** PostgreSQL: how long opening a connection may take. @default 2000 (a server answers 503 rather than keep a request waiting) */
  connectTimeoutMs?: number;
}

/**
 * How long one attempt of an offline tool (`svc-audit-verify`, `svc-migrate-storage`) waits for a
 * PostgreSQL connection: an operator's one-off command can wait longer than a request.
 */
export const OFFLINE_TOOL_CONNECT_TIMEOUT_MS = 10_000;
/**
 * How long an offline tool keeps trying while the database is not ready yet (still starting, its
 * network not up yet right after `compose up`) before it gives up with the last failure.
 */
export const OFFLINE_TOOL_WAIT_MS = 30_000;
/** The pause between two of an offline tool's attempts. */
const OFFLINE_TOOL_RETRY_PAUSE_MS = 500;

/** How {@link whileNotReady} waits: the clock it reads and how it pauses (tests pass a manual clock). */
export interface RetryTiming {
  clock: Clock;
  pause: (ms: number) => Promise<void>;
}

const realTiming: RetryTiming = { clock: systemClock, pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

/**
 * `attempt()`, tried again while it fails because the database is not ready yet ({@link isNotReadyYet}:
 * starting up, no answer in time), until `withinMs` have passed since the first try (pausing
 * {@link OFFLINE_TOOL_RETRY_PAUSE_MS} between tries); then the last failure is thrown. Any other
 * failure (refused, a wrong password, no such database, a schema error) is thrown at once. For
 * offline tools, never requests.
 */
export async function whileNotReady<T>(attempt: () => Promise<T>, withinMs: number, timing: RetryTiming = realTiming): Promise<T> {
  const deadline = timing.clock.now() + withinMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof StorageUnavailableError && isNotReadyYet(error)) || timing.clock.now() + OFFLINE_TOOL_RETRY_PAUSE_MS > deadline) throw error;
    }
    await timing.pause(OFFLINE_TOOL_RETRY_PAUSE_MS);
  }
}

/** {@link openStorage} as an offline tool opens it: {@link OFFLINE_TOOL_CONNECT_TIMEOUT_MS} per attempt, tried again for {@link OFFLINE_TOOL_WAIT_MS}. */
export function openStorageForTool(config: StorageConfig): Promise<Storage> {
  return whileNotReady(() => openStorage(config, { connectTimeoutMs: OFFLINE_TOOL_CONNECT_TIMEOUT_MS }), OFFLINE_TOOL_WAIT_MS);
}

/** The storage a server configuration names: PostgreSQL when `SVC_DATABASE_URL` is set, else the SQLite file. */
export function storageConfigOf(config: Pick<ServerConfig, 'databaseUrl' | 'databasePath' | 'databasePoolMax'>): StorageConfig {
  return config.databaseUrl === null
    ? { kind: 'sqlite', path: config.databasePath }
    : { kind: 'postgres', url: config.databaseUrl.url, poolMax: config.databasePoolMax };
}

/**
 * Opens (and migrates, under a lock on PostgreSQL) the storage `config` names.
 *
 * @throws {StorageSchemaError} when the schema is newer than this server.
 * @throws {StorageUnavailableError} when the database cannot be opened now.
 */
export async function openStorage(config: StorageConfig, options: OpenStorageOptions = {}): Promise<Storage> {
  switch (config.kind) {
    case 'sqlite':
      return SqliteStorage.open(config.path, { transactionGuard: options.strictTransactions === true ? 'throw' : 'warn' });
    case 'postgres':
      return openPostgresStorage({
        url: config.url,
        poolMax: config.poolMax,
        ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
        ...(options.now === undefined ? {} : { now: options.now }),
        ...(options.connectTimeoutMs === undefined ? {} : { connectionTimeoutMs: options.connectTimeoutMs }),
      });
  }
}
