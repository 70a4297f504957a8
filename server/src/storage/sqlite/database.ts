/**
 * Opens an SQLite connection: WAL journal, a busy timeout, foreign keys, full sync, and the numbered
 * migrations applied under an immediate transaction so that processes starting together migrate once.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { latestVersion, pendingMigrations } from '../migrations/index.js';
import { StorageSchemaError } from '../port/errors.js';

/** A better-sqlite3 connection. */
export type Database = BetterSqlite3.Database;

/** How long a writer waits for another process's lock before giving up with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/** How long start-up keeps retrying when another process holds the database during its own start. */
const OPEN_DEADLINE_MS = 20_000;

/**
 * Opens (creating if needed) the database at `path` and brings its schema up to date.
 *
 * Processes starting together on a fresh file can collide while switching it to WAL: SQLite then
 * answers SQLITE_BUSY at once, without waiting (it would be a deadlock). So the whole opening is
 * retried, with a short random pause, until {@link OPEN_DEADLINE_MS} has passed.
 *
 * @example
 * const db = openDatabase('/home/me/.svc/auth/auth.db');
 */
export function openDatabase(path: string): Database {
  const directory = dirname(path);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  // Create the file 0600 before SQLite does, so it never exists with the umask's looser mode.
  closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
  const deadline = Date.now() + OPEN_DEADLINE_MS;
  for (;;) {
    try {
      return openOnce(path);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY') || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.random() * 90);
    }
  }
}

function openOnce(path: string): Database {
  const db = new BetterSqlite3(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Lookups stay flat as keys pile up: a 64 MiB page cache and memory-mapped reads of the file.
    db.pragma('cache_size = -65536');
    db.pragma('mmap_size = 268435456');
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Opens an existing database for reading only, for previews that must not change a byte of it
 * (`svc-migrate-auth --dry-run`): nothing is created and nothing is written to the file. A database
 * at the current schema is opened read-only; one at an older schema is copied into memory and the
 * copy migrated, so the preview sees what a real run (which migrates first) would see. Returns null
 * when the file does not exist or holds no schema yet (an empty database).
 *
 * @throws when the schema is newer than this code, or the file is not an SQLite database.
 */
export function openDatabaseReadOnly(path: string): Database | null {
  if (!existsSync(path)) return null;
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  try {
    const current = storedVersion(db);
    if (current === schemaVersion) return db;
    if (current === 0) {
      db.close();
      return null;
    }
    const image = db.serialize();
    // A WAL database's header (bytes 18 and 19 = 2) cannot be opened from memory: mark the copy as
    // a rollback-journal database, which is what an in-memory database is anyway.
    image[18] = 1;
    image[19] = 1;
    const copy = new BetterSqlite3(image);
    db.close();
    copy.pragma('foreign_keys = ON');
    migrate(copy);
    return copy;
  } catch (error) {
    if (db.open) db.close();
    throw error;
  }
}

/** The schema version the code expects (the number of the last migration). */
export const schemaVersion = latestVersion();

/** The database's schema version. @throws when it is newer than this code. */
function storedVersion(db: Database): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > schemaVersion) {
    throw new StorageSchemaError(`the database schema (version ${current}) is newer than this server (version ${schemaVersion}); upgrade svc`);
  }
  return current;
}

function migrate(db: Database): void {
  const apply = db.transaction(() => {
    const current = storedVersion(db);
    for (const migration of pendingMigrations(current)) db.exec(migration.sql);
    if (current !== schemaVersion) db.pragma(`user_version = ${schemaVersion}`);
  });
  apply.immediate();
}
