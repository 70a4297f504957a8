/**
 * Picks the storage adapter for a configuration. The only module that knows both adapters: the
 * server, the offline tools and the tests open storage here.
 */
import type { Storage } from './port/index.js';
import { SqliteStorage } from './sqlite/sqlite-storage.js';

/** Where svc keeps its state. */
export type StorageConfig =
  /** One SQLite file (`SVC_HOME/auth/auth.db` unless `SVC_AUTH_DB_PATH` says otherwise). */
  | { kind: 'sqlite'; path: string };

/** How to open it. */
export interface OpenStorageOptions {
  /** SQLite: fail a transaction whose work awaited something other than its stores (tests) instead of warning. */
  strictTransactions?: boolean;
}

/**
 * Opens (and migrates) the storage `config` names.
 *
 * The PostgreSQL adapter plugs in here: `{ kind: 'postgres'; url; poolMax }` in {@link StorageConfig}
 * and a branch that opens `storage/postgres/`.
 *
 * @throws {StorageSchemaError} when the schema is newer than this server.
 * @throws {StorageUnavailableError} when the database cannot be opened now.
 */
export async function openStorage(config: StorageConfig, options: OpenStorageOptions = {}): Promise<Storage> {
  switch (config.kind) {
    case 'sqlite':
      return SqliteStorage.open(config.path, { transactionGuard: options.strictTransactions === true ? 'throw' : 'warn' });
  }
}
