/**
 * Picks the storage adapter for a configuration. The only module that knows both adapters: the
 * server, the offline tools and the tests open storage here.
 */
import type { ServerConfig } from '../config.js';
import type { Storage } from './port/index.js';
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
  /** PostgreSQL: open the LISTEN connection that tells the caches of changes. Offline tools, which cache nothing, pass false. @default true */
  listen?: boolean;
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
        ...(options.listen === undefined ? {} : { listen: options.listen }),
      });
  }
}
