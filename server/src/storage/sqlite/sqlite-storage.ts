/**
 * The SQLite adapter of the storage port (better-sqlite3, the embedded default).
 *
 * Two connections to one file: a **reader** for root-level reads (in WAL mode it sees committed data
 * only) and a **writer** for every write and every transaction, behind an in-process mutex
 * ({@link WriterMutex}). Transactions are `BEGIN IMMEDIATE`: SQLite's single writer lock makes every
 * check-then-write atomic across processes, so the port's lock options need nothing here. Their work
 * is async, but every store call resolves in microtasks, so a correct transaction finishes within the
 * macrotask that began it; a guard scheduled with `setImmediate` reports one that awaited something
 * else (it would hold the writer while unrelated I/O runs). The writer never sleeps in SQLite for
 * another process's lock (`busy_timeout = 0`): the mutex retries on timers (busy-retry.ts). The
 * reader's `data_version` and the `cache_epochs` table are the change feed ({@link SqliteChangeFeed}).
 */
import { performance } from 'node:perf_hooks';
import type {
  ApiKeyStore,
  AuditStore,
  BruteForceStore,
  ModelFamilyStore,
  ModelStore,
  OidcStore,
  SecretFingerprintStore,
  SessionStore,
  SettingsStore,
  Storage,
  StorageTx,
  TableTransfer,
  TransactionOptions,
  UsageStore,
  UserStore,
} from '../port/index.js';
import { SqliteApiKeyStore } from './api-keys-store.js';
import { SqliteAuditStore } from './audit-store.js';
import { SqliteBruteForceStore } from './brute-force-store.js';
import { SqliteChangeFeed } from './change-feed.js';
import { openDatabase, openDatabaseReadOnly, type Database } from './database.js';
import { attempt, toStorageError } from './errors.js';
import { SqliteModelFamilyStore, SqliteModelStore } from './models-store.js';
import { SqliteOidcStore } from './oidc-store.js';
import { SqliteSessionStore } from './sessions-store.js';
import { SqliteSecretFingerprintStore } from './secret-fingerprint-store.js';
import { SqliteSettingsStore } from './settings-store.js';
import { SqliteTableTransfer } from './table-transfer.js';
import { statement, type Connections } from './statements.js';
import { SqliteUsageStore } from './usage-store.js';
import { SqliteUserStore } from './users-store.js';
import { openGate, WriterMutex } from './writer-gate.js';

/** How {@link SqliteStorage.open} opens the file. */
export interface SqliteOpenOptions {
  /**
   * Open an existing database for reading only (nothing created, nothing written; an older schema is
   * migrated in a copy in memory). {@link SqliteStorage.open} answers null when there is none.
   */
  readOnly?: boolean;
  /**
   * What to do when a transaction is still open after the turn that began it (its work awaited
   * something other than its stores): `'throw'` fails it (tests), `'warn'` logs it. @default 'warn'
   */
  transactionGuard?: 'throw' | 'warn';
}

/** The stores of one pair of connections. */
function stores(connections: Connections, path: string | null) {
  return {
    users: new SqliteUserStore(connections),
    keys: new SqliteApiKeyStore(connections),
    sessions: new SqliteSessionStore(connections),
    bruteForce: new SqliteBruteForceStore(connections),
    settings: new SqliteSettingsStore(connections),
    models: new SqliteModelStore(connections),
    families: new SqliteModelFamilyStore(connections),
    oidc: new SqliteOidcStore(connections),
    audit: new SqliteAuditStore(connections, path),
    usage: new SqliteUsageStore(connections),
    secretFingerprints: new SqliteSecretFingerprintStore(connections),
  };
}

/** Everything svc keeps, in one SQLite file. */
export class SqliteStorage implements Storage {
  readonly backend = 'sqlite' as const;
  readonly users: UserStore;
  readonly keys: ApiKeyStore;
  readonly sessions: SessionStore;
  readonly bruteForce: BruteForceStore;
  readonly settings: SettingsStore;
  readonly models: ModelStore;
  readonly families: ModelFamilyStore;
  readonly oidc: OidcStore;
  readonly audit: AuditStore;
  readonly usage: UsageStore;
  readonly secretFingerprints: SecretFingerprintStore;
  /** Answers synchronously (`data_version`, then the cache epochs when it moved). */
  readonly changes: SqliteChangeFeed;
  readonly transfer: TableTransfer;
  readonly #reader: Database;
  readonly #writer: Database;
  readonly #mutex: WriterMutex;
  readonly #tx: StorageTx;
  readonly #guard: 'throw' | 'warn';
  #openTransaction: { overran: boolean } | null = null;

  private constructor(reader: Database, writer: Database, path: string | null, guard: 'throw' | 'warn') {
    this.#reader = reader;
    this.#writer = writer;
    this.#guard = guard;
    this.changes = new SqliteChangeFeed(reader);
    this.#mutex = new WriterMutex(() => this.changes.noteOwnCommit());
    const root = stores({ read: reader, write: writer, gate: this.#mutex }, path);
    this.users = root.users;
    this.keys = root.keys;
    this.sessions = root.sessions;
    this.bruteForce = root.bruteForce;
    this.settings = root.settings;
    this.models = root.models;
    this.families = root.families;
    this.oidc = root.oidc;
    this.audit = root.audit;
    this.transfer = new SqliteTableTransfer(reader, (work) => this.#exclusive(work));
    this.usage = root.usage;
    this.secretFingerprints = root.secretFingerprints;
    const bound = stores({ read: writer, write: writer, gate: openGate }, path);
    this.#tx = {
      users: bound.users,
      keys: bound.keys,
      sessions: bound.sessions,
      bruteForce: bound.bruteForce,
      settings: bound.settings,
      models: bound.models,
      families: bound.families,
      oidc: bound.oidc,
      secretFingerprints: bound.secretFingerprints,
    };
  }

  /**
   * Opens the database at `path` (creating and migrating it), or with `readOnly` an existing one
   * (null when there is none).
   *
   * @throws {StorageSchemaError} when the schema is newer than this code.
   */
  static open(path: string, options?: SqliteOpenOptions & { readOnly?: false }): SqliteStorage;
  static open(path: string, options: SqliteOpenOptions): SqliteStorage | null;
  static open(path: string, options: SqliteOpenOptions = {}): SqliteStorage | null {
    const guard = options.transactionGuard ?? 'warn';
    if (options.readOnly === true) {
      const db = openDatabaseReadOnly(path);
      // A migrated copy lives in memory: one connection serves reads and writes.
      return db === null ? null : new SqliteStorage(db, db, db.memory ? null : path, guard);
    }
    // The writer never sleeps in SQLite for a lock: its writes wait on timers (busy-retry.ts).
    const writer = openDatabase(path, { busyTimeoutMs: 0 });
    let reader: Database | undefined;
    try {
      reader = openDatabase(path);
      return new SqliteStorage(reader, writer, path, guard);
    } catch (error) {
      reader?.close();
      writer.close();
      throw error;
    }
  }

  transaction<T>(work: (tx: StorageTx) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    return this.#writeTransaction(() => work(this.#tx), { watchTurn: true });
  }

  /** `work` on the writer inside one `BEGIN IMMEDIATE` transaction, without the one-turn guard (bulk imports await their source). */
  #exclusive<T>(work: (writer: Database) => Promise<T>): Promise<T> {
    return this.#writeTransaction(() => work(this.#writer), { watchTurn: false });
  }

  /**
   * `run` inside one `BEGIN IMMEDIATE` transaction of the writer, holding the writer mutex: committed
   * when it resolves, rolled back when it throws. With `watchTurn`, a transaction still open after
   * the turn that began it (its work awaited something other than its stores) is reported, or failed
   * with the `'throw'` guard.
   */
  async #writeTransaction<T>(run: () => Promise<T>, options: { watchTurn: boolean }): Promise<T> {
    await this.#mutex.acquire();
    try {
      // Another process may hold the file's write lock: wait for it on timers, never in SQLite.
      const locking = this.#mutex.lockFile(() => this.#writer.exec('BEGIN IMMEDIATE'));
      if (locking !== undefined) await locking;
      const opened = { overran: false };
      if (options.watchTurn) this.#watchTurn(opened);
      let result: T;
      try {
        result = await run();
        if (opened.overran && this.#guard === 'throw') throw new Error('the transaction awaited something other than its stores (see the storage port: work must await nothing but tx)');
        this.#openTransaction = null;
        this.#writer.exec('COMMIT');
      } catch (error) {
        this.#openTransaction = null;
        if (this.#writer.inTransaction) this.#writer.exec('ROLLBACK');
        throw toStorageError(error);
      }
      this.#mutex.committed();
      return result;
    } finally {
      this.#mutex.release();
    }
  }

  /** Marks `opened` overran (and warns) when the transaction is still open after the turn that began it. */
  #watchTurn(opened: { overran: boolean }): void {
    this.#openTransaction = opened;
    const began = performance.now();
    setImmediate(() => {
      if (this.#openTransaction !== opened) return;
      opened.overran = true;
      process.emitWarning(`an SQLite transaction is still open after the turn that began it (${Math.round(performance.now() - began)} ms): its work awaited something other than its stores`, 'SvcStorageWarning');
    });
  }

  ping(): Promise<void> {
    return attempt(() => {
      // Reads the schema and a page of a real table: a file that was deleted, replaced or corrupted fails here.
      statement(this.#reader, 'SELECT EXISTS (SELECT 1 FROM users)').get();
    });
  }

  async close(): Promise<void> {
    // Wait for an open transaction (and queued writes) to finish first.
    await this.#mutex.acquire();
    try {
      if (this.#reader !== this.#writer && this.#reader.open) this.#reader.close();
      if (this.#writer.open) this.#writer.close();
    } finally {
      this.#mutex.release();
    }
  }

  /**
   * @internal Tests, benchmarks and maintenance only: the writer connection, for SQL no store offers
   * (tampering with the audit log in a test, `ANALYZE`). Never used by the server.
   */
  get database(): Database {
    return this.#writer;
  }
}
