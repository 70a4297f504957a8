/** The PostgreSQL adapter of the storage port (see `postgres-storage.ts`). */
export { openPostgresStorage, PostgresStorage, connectionConfig, type PostgresStorageConfig } from './postgres-storage.js';
export { PostgresMigrator, migrationChecksum, type PostgresMigratorOptions } from './migrator.js';
