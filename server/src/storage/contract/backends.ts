/**
 * The backends the storage contract suite runs against: one factory per adapter of the port. Every
 * test in this folder is written against the port (`Storage`) alone and runs once per factory with
 * `describe.each(storageBackends)`, so both adapters are held to the same behaviour.
 *
 * SQLite's `another()` opens the same file again: another process on one host, with connections of
 * its own (several `SqliteStorage` in one process behave as several processes: their writes wait for
 * each other's file lock on timers, never blocking the event loop). The fault tests of
 * `change-feed.test.ts` are PostgreSQL's own (a LISTEN connection to kill, a server to stop) and
 * keep using {@link startPostgresFaultBackend}.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalPostgresCluster, type PostgresCluster } from '../../testing/postgres-cluster.js';
import { createTestDatabase } from '../../testing/postgres-database.js';
import type { Storage } from '../port/index.js';
import { openPostgresStorage } from '../postgres/postgres-storage.js';
import { SqliteStorage } from '../sqlite/sqlite-storage.js';

/** One database for one test, reachable through several `Storage` instances (several hosts). */
export interface StorageUnderTest {
  /** The first `Storage` on the database. */
  readonly storage: Storage;
  /** Another `Storage` on the same database (another process or host); closed by {@link destroy}. */
  another(): Promise<Storage>;
  /** Closes every `Storage` and removes the database. */
  destroy(): Promise<void>;
}

/** How to get a fresh database behind an adapter. */
export interface StorageBackend {
  readonly name: string;
  open(): Promise<StorageUnderTest>;
}

/** PostgreSQL: a database of its own, copied from the run's migrated template. */
export const postgresBackend: StorageBackend = {
  name: 'postgres',
  async open() {
    const database = await createTestDatabase();
    return storagesOn(() => openPostgresStorage({ url: database.url, poolMax: 12 }), () => database.drop());
  },
};

/** SQLite: a file of its own in a temporary directory; a transaction that awaits anything else fails. */
export const sqliteBackend: StorageBackend = {
  name: 'sqlite',
  async open() {
    const directory = await mkdtemp(join(tmpdir(), 'svc-storage-contract-'));
    const path = join(directory, 'auth.db');
    return storagesOn(
      async () => SqliteStorage.open(path, { transactionGuard: 'throw' }),
      () => rm(directory, { recursive: true, force: true }),
    );
  },
};

/**
 * A database under test reached through `open` (each call another process or host), closing every
 * storage opened and then running `cleanup` when destroyed.
 */
async function storagesOn(open: () => Promise<Storage>, cleanup: () => Promise<void>): Promise<StorageUnderTest> {
  const opened: Storage[] = [];
  const another = async (): Promise<Storage> => {
    const storage = await open();
    opened.push(storage);
    return storage;
  };
  return {
    storage: await another(),
    another,
    async destroy() {
      for (const each of opened) await each.close();
      await cleanup();
    },
  };
}

/** Every backend the suite runs against. */
export const storageBackends: readonly StorageBackend[] = [sqliteBackend, postgresBackend];

/** A PostgreSQL server of the test's own, so the test may stop and start it. */
export interface PostgresFaultBackend extends StorageUnderTest {
  readonly cluster: PostgresCluster;
  readonly databaseUrl: string;
}

/** Starts a local PostgreSQL for one fault test, with svc's schema in a database of its own. */
export async function startPostgresFaultBackend(): Promise<PostgresFaultBackend> {
  const cluster = await startLocalPostgresCluster();
  try {
    const databaseUrl = await cluster.createDatabase();
    const under = await storagesOn(() => openPostgresStorage({ url: databaseUrl, poolMax: 4 }), () => cluster.stop());
    return { ...under, cluster, databaseUrl };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}
