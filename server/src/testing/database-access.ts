/**
 * Raw access to the database of a test home, whichever backend the run uses (`test-storage.ts`):
 * the SQLite file `{home}/auth/auth.db`, or the PostgreSQL database every process of that home
 * shares. For the tests that inspect or tamper with stored rows, search the stored bytes for
 * secrets, or take the database away under a running server (fail closed). Statements use `?`
 * placeholders on both backends; where the dialects differ a test writes both.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { StorageConfig } from '../storage/open-storage.js';
import { withDatabase as withDatabaseName, withPostgresClient } from './postgres-cluster.js';
import { postgresEnvironmentFor, testStorageBackend, type TestStorageBackend } from './test-storage.js';

/** One statement for both backends, or one per dialect. */
export type Statement = string | { sqlite: string; postgres: string };

/** A connection of the test's own to the database of a test home. */
export interface DatabaseAccess {
  readonly backend: TestStorageBackend;
  /** The rows `statement` answers (blobs and `bytea` as Buffers, integers as numbers). */
  all<Row = Record<string, unknown>>(statement: Statement, parameters?: readonly unknown[]): Promise<Row[]>;
  /** The first column of every row. */
  column<Value = unknown>(statement: Statement, parameters?: readonly unknown[]): Promise<Value[]>;
  /** Runs `statement`; answers how many rows it changed. */
  run(statement: Statement, parameters?: readonly unknown[]): Promise<number>;
  close(): Promise<void>;
}

/** The SQLite file of a server started on `home` with default paths. */
export function sqliteDatabasePath(home: string): string {
  return join(home, 'auth', 'auth.db');
}

/** The PostgreSQL URL of `home`'s database in a PostgreSQL run (holds a password: never print it). */
export async function postgresUrlOf(home: string): Promise<string> {
  return (await postgresEnvironmentFor(home))['SVC_DATABASE_URL'] as string;
}

/**
 * The storage of a server started on `home` with default paths, for {@link openStorage} (an
 * offline tool's view of it, or a second process's).
 */
export async function storageConfigOfHome(home: string): Promise<StorageConfig> {
  return testStorageBackend() === 'postgres' ? { kind: 'postgres', url: await postgresUrlOf(home), poolMax: 2 } : { kind: 'sqlite', path: sqliteDatabasePath(home) };
}

/** The JWT signing secret the servers of `home` use: the generated file on SQLite, the home's variable on PostgreSQL. */
export function signingSecretOf(home: string): Promise<string> {
  return secretOf(home, 'SVC_AUTH_JWT_SECRET_KEY', 'jwt_secret_key');
}

/** The API-key encryption key the servers of `home` use (see {@link signingSecretOf}). */
export function encryptionKeyOf(home: string): Promise<string> {
  return secretOf(home, 'SVC_AUTH_ENCRYPTION_KEY', 'encryption_key');
}

async function secretOf(home: string, variable: string, file: string): Promise<string> {
  if (testStorageBackend() === 'postgres') return (await postgresEnvironmentFor(home))[variable] as string;
  return readFileSync(join(home, 'auth', file), 'utf8').trim();
}

/** int8 as a number, as svc's own connections read it. */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** `?` placeholders as PostgreSQL's `$1…` (outside quoted text). */
function numberedPlaceholders(statement: string): string {
  let index = 0;
  let quoted = false;
  let result = '';
  for (const character of statement) {
    if (character === "'") quoted = !quoted;
    result += character === '?' && !quoted ? `$${(index += 1)}` : character;
  }
  return result;
}

function dialect(statement: Statement, backend: TestStorageBackend): string {
  return typeof statement === 'string' ? statement : statement[backend];
}

/** Opens a connection to `home`'s database (the SQLite file must exist). Close it when done. */
export async function openDatabaseAccess(home: string): Promise<DatabaseAccess> {
  if (testStorageBackend() === 'postgres') {
    const client = new pg.Client({ connectionString: await postgresUrlOf(home), types });
    client.on('error', () => {});
    await client.connect();
    const query = (statement: Statement, parameters: readonly unknown[] = []) => client.query(numberedPlaceholders(dialect(statement, 'postgres')), [...parameters]);
    return {
      backend: 'postgres',
      all: async <Row>(statement: Statement, parameters?: readonly unknown[]) => (await query(statement, parameters)).rows as Row[],
      column: async <Value>(statement: Statement, parameters?: readonly unknown[]) => {
        const result = await client.query({ text: numberedPlaceholders(dialect(statement, 'postgres')), values: [...(parameters ?? [])], rowMode: 'array' });
        return result.rows.map((row: unknown[]) => row[0] as Value);
      },
      run: async (statement, parameters) => (await query(statement, parameters)).rowCount ?? 0,
      close: () => client.end(),
    };
  }
  const db = new Database(sqliteDatabasePath(home), { fileMustExist: true, timeout: 2000 });
  return {
    backend: 'sqlite',
    all: async <Row>(statement: Statement, parameters: readonly unknown[] = []) => db.prepare(dialect(statement, 'sqlite')).all(...parameters) as Row[],
    column: async <Value>(statement: Statement, parameters: readonly unknown[] = []) => db.prepare(dialect(statement, 'sqlite')).pluck().all(...parameters) as Value[],
    run: async (statement, parameters = []) => db.prepare(dialect(statement, 'sqlite')).run(...parameters).changes,
    close: async () => {
      db.close();
    },
  };
}

/**
 * Runs `work` on a fresh connection to `home`'s database and closes it.
 *
 * @example
 * const users = await withDatabaseAccess(server.home, (db) => db.column<number>('SELECT count(*) FROM users'));
 */
export async function withDatabaseAccess<T>(home: string, work: (db: DatabaseAccess) => Promise<T>): Promise<T> {
  const db = await openDatabaseAccess(home);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/**
 * Holds a write lock on the whole database of `home` until the answered function is called: a
 * SQLite `BEGIN EXCLUSIVE` (in WAL mode readers go on), or on PostgreSQL every svc table locked
 * `IN EXCLUSIVE MODE` by a transaction of another connection (plain reads go on, every write waits
 * past svc's 5 s `lock_timeout`).
 */
export async function holdWriteLock(home: string): Promise<() => Promise<void>> {
  const db = await openDatabaseAccess(home);
  try {
    if (db.backend === 'sqlite') {
      await db.run('BEGIN EXCLUSIVE');
    } else {
      const tables = await db.column<string>("SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename");
      await db.run('BEGIN');
      await db.run(`LOCK TABLE ${tables.join(', ')} IN EXCLUSIVE MODE`);
    }
  } catch (error) {
    await db.close();
    throw error;
  }
  return async () => {
    try {
      await db.run('ROLLBACK');
    } finally {
      await db.close();
    }
  };
}

/**
 * Takes `home`'s database away from a running server for good: on SQLite its files are overwritten
 * with random bytes (every statement then fails); on PostgreSQL the database stops accepting
 * connections (`ALLOW_CONNECTIONS false`, which binds superusers too) and every open connection to
 * it is terminated.
 */
export async function breakDatabase(home: string): Promise<void> {
  if (testStorageBackend() === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm']) {
      const path = sqliteDatabasePath(home) + suffix;
      writeFileSync(path, randomBytes(Math.max(statSync(path).size, 4096)));
    }
    return;
  }
  const name = databaseNameOf(await postgresUrlOf(home));
  await maintenance(async (client) => {
    await client.query(`ALTER DATABASE ${quoteIdentifier(name)} WITH ALLOW_CONNECTIONS false`);
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
  });
}

/**
 * Replaces `home`'s database with an empty one while no server runs: the SQLite files removed (the
 * next server creates a fresh file), or the PostgreSQL database dropped and created again, migrated
 * and empty, under the same name (the home's URL and secrets stay).
 */
export async function replaceWithEmptyDatabase(home: string): Promise<void> {
  if (testStorageBackend() === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm']) rmSync(sqliteDatabasePath(home) + suffix, { force: true });
    return;
  }
  const { inject } = await import('vitest');
  const name = databaseNameOf(await postgresUrlOf(home));
  await maintenance(async (client) => {
    await client.query(`DROP DATABASE ${quoteIdentifier(name)} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${quoteIdentifier(name)} TEMPLATE ${quoteIdentifier(inject('svcPostgresTemplate'))}`);
  });
}

/** Where a needle was found by {@link searchStoredData}. */
export interface StoredDataSearch {
  /** What was searched: `database` (the stored pages), `log` (a write-ahead log), `dump` (every table as text). */
  readonly searched: ReadonlySet<'database' | 'log' | 'dump'>;
  /** `"<label> in <where>"` for every needle found. */
  readonly found: string[];
  /** Whether the raw files were in reach (always on SQLite; on PostgreSQL only with the run's own cluster). */
  readonly filesInReach: boolean;
}

/**
 * Searches everything `home`'s database keeps for `needles`. SQLite: the raw bytes of the file and
 * its companions (`-wal` is the log). PostgreSQL: every table of the database dumped as text
 * (`row_to_json`), and, when the run's cluster is local (its data directory known), after a
 * `CHECKPOINT`, the raw files of this database and every write-ahead-log segment of the cluster.
 */
export async function searchStoredData(home: string, needles: readonly { label: string; bytes: Buffer }[]): Promise<StoredDataSearch> {
  const searched = new Set<'database' | 'log' | 'dump'>();
  const found: string[] = [];
  const visit = (kind: 'database' | 'log' | 'dump', name: string, bytes: Buffer): void => {
    searched.add(kind);
    for (const needle of needles) if (bytes.includes(needle.bytes)) found.push(`${needle.label} in ${name}`);
  };
  if (testStorageBackend() === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm', '-journal']) {
      const path = sqliteDatabasePath(home) + suffix;
      if (existsSync(path)) visit(suffix === '-wal' ? 'log' : 'database', path, readFileSync(path));
    }
    return { searched, found, filesInReach: true };
  }
  const oid = await withDatabaseAccess(home, async (db) => {
    const tables = await db.column<string>("SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename");
    for (const table of tables) {
      const rows = await db.column<string>(`SELECT row_to_json(t)::text FROM ${table} t`);
      visit('dump', `table ${table}`, Buffer.from(rows.join('\n')));
    }
    return (await db.column<number>('SELECT oid::int8 FROM pg_database WHERE datname = current_database()'))[0];
  });
  const { inject } = await import('vitest');
  const dataDirectory = inject('svcPostgresDataDirectory');
  if (dataDirectory === '' || oid === undefined) return { searched, found, filesInReach: false };
  await maintenance((client) => client.query('CHECKPOINT'));
  for (const [kind, directory] of [['database', join(dataDirectory, 'base', String(oid))], ['log', join(dataDirectory, 'pg_wal')]] as const) {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (entry.isFile()) visit(kind, join(directory, entry.name), readFileSync(join(directory, entry.name)));
    }
  }
  return { searched, found, filesInReach: true };
}

function databaseNameOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

async function maintenance<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const { inject } = await import('vitest');
  return withPostgresClient(withDatabaseName(inject('svcPostgresUrl'), 'postgres'), work);
}
