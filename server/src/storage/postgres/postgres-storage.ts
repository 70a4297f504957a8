/**
 * The PostgreSQL adapter of the storage port, for deployments of several hosts: one connection pool
 * per process, the stores on it, transactions with advisory and row locks, and the change feed
 * (epoch gate plus LISTEN connection). {@link openPostgresStorage} migrates the schema first, under
 * the migration lock, so hosts starting together migrate once.
 */
import pg from 'pg';
import type { Storage, StorageTx, TransactionOptions } from '../port/index.js';
import { PostgresApiKeyStore } from './api-key-store.js';
import { PostgresAuditStore } from './audit-store.js';
import { PostgresUsageStore } from './usage-store.js';
import { PostgresBruteForceStore } from './brute-force-store.js';
import { PostgresChangeFeed } from './change-feed.js';
import { ChangeListener } from './change-listener.js';
import { Executor } from './executor.js';
import { PostgresMigrator } from './migrator.js';
import { PostgresModelFamilyStore, PostgresModelStore } from './model-store.js';
import { PostgresOidcStore } from './oidc-store.js';
import { PostgresSecretFingerprintStore } from './secret-fingerprint-store.js';
import { PostgresSessionStore } from './session-store.js';
import { PostgresSettingsStore } from './settings-store.js';
import { PostgresTableTransfer } from './table-transfer.js';
import { inTransaction } from './transaction.js';
import { PostgresUserStore } from './users-store.js';

/** How svc reaches its PostgreSQL database. */
export interface PostgresStorageConfig {
  /** `postgres://` or `postgresql://` URL (`sslmode`, `sslrootcert`, … as node-postgres reads them). */
  url: string;
  /** Connections in this process's pool (`SVC_DATABASE_POOL_MAX`). @default 10 */
  poolMax?: number;
  /** Named prepared statements for the hot queries; off behind PgBouncer < 1.21 in transaction mode. @default true */
  prepare?: boolean;
  /** Keep a LISTEN connection for early cache invalidation. @default true */
  listen?: boolean;
  /** How long opening a new connection may take before answering 503. @default 2000 */
  connectionTimeoutMs?: number;
  /**
   * How long a request may wait for a pooled connection while every one is busy (each busy one is
   * bounded by the statement and lock timeouts) before answering 503. @default 30000
   */
  poolQueueTimeoutMs?: number;
  /** Hears of lost connections (pooled or listening) and listener outages, for the log; never given a password. */
  onWarning?: (message: string, error?: unknown) => void;
  /** The time (epoch ms) the listener stamps notifications with: the server's injected clock. @default Date.now */
  now?: () => number;
}

/** int8 (`bigint`: times in ms, ids, counts) as a JS number: every value svc stores is below 2^53. */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** The connection settings every svc connection uses (see `transaction.ts` for why these timeouts). */
export function connectionConfig(config: PostgresStorageConfig): pg.ClientConfig {
  return {
    connectionString: config.url,
    connectionTimeoutMillis: config.connectionTimeoutMs ?? 2000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    statement_timeout: 10_000,
    lock_timeout: 5000,
    idle_in_transaction_session_timeout: 15_000,
    application_name: 'svc',
    types,
  };
}

/** A `pg.Client` whose connect gives up after `timeoutMs`, whatever the pool passes it. */
function clientWithConnectTimeout(timeoutMs: number): typeof pg.Client {
  return class ConnectTimeoutClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super({ ...(typeof config === 'string' ? { connectionString: config } : config), connectionTimeoutMillis: timeoutMs });
    }
  };
}

/** {@link Storage} on PostgreSQL. */
export class PostgresStorage implements Storage {
  readonly backend = 'postgres' as const;
  readonly users: PostgresUserStore;
  readonly keys: PostgresApiKeyStore;
  readonly sessions: PostgresSessionStore;
  readonly bruteForce: PostgresBruteForceStore;
  readonly settings: PostgresSettingsStore;
  readonly models: PostgresModelStore;
  readonly families: PostgresModelFamilyStore;
  readonly oidc: PostgresOidcStore;
  readonly audit: PostgresAuditStore;
  readonly usage: PostgresUsageStore;
  readonly secretFingerprints: PostgresSecretFingerprintStore;
  readonly changes: PostgresChangeFeed;
  readonly transfer: PostgresTableTransfer;
  readonly #pool: pg.Pool;
  readonly #prepare: boolean;
  readonly #listener: ChangeListener | null;
  #closed = false;

  constructor(config: PostgresStorageConfig) {
    const connection = connectionConfig(config);
    this.#prepare = config.prepare ?? true;
    // Waiting in the pool's queue is not the database being unreachable. node-postgres bounds both
    // with one `connectionTimeoutMillis`; with 2 s a burst of logins on a healthy database answered
    // 503 to the requests merely waiting their turn (test/src/security/hardening-brute-force.test.ts,
    // H2: 300 concurrent logins). So the pool's queue waits `poolQueueTimeoutMs`, while each new
    // connection still fails after `connectionTimeoutMs` (the client's own connect timeout).
    this.#pool = new pg.Pool({
      ...connection,
      connectionTimeoutMillis: config.poolQueueTimeoutMs ?? 30_000,
      Client: clientWithConnectTimeout(connection.connectionTimeoutMillis ?? 2000),
      max: config.poolMax ?? 10,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection lost to a restart or failover: the pool drops it and opens a new one on
    // demand. Without this listener the process would crash.
    this.#pool.on('error', (error) => config.onWarning?.('an idle database connection was lost; the pool opens another on demand', error));
    const sql = new Executor(this.#pool, this.#pool, { inTransaction: false, prepare: this.#prepare });
    this.users = new PostgresUserStore(sql);
    this.keys = new PostgresApiKeyStore(sql);
    this.sessions = new PostgresSessionStore(sql);
    this.bruteForce = new PostgresBruteForceStore(sql);
    this.settings = new PostgresSettingsStore(sql);
    this.models = new PostgresModelStore(sql);
    this.families = new PostgresModelFamilyStore(sql);
    this.oidc = new PostgresOidcStore(sql);
    this.audit = new PostgresAuditStore(sql, this.#pool);
    this.usage = new PostgresUsageStore(sql);
    this.secretFingerprints = new PostgresSecretFingerprintStore(sql);
    this.changes = new PostgresChangeFeed(sql);
    this.transfer = new PostgresTableTransfer(this.#pool);
    this.#listener =
      config.listen === false
        ? null
        : new ChangeListener(connection, (domain) => this.changes.notify(domain), {
            ...(config.onWarning === undefined ? {} : { onWarning: config.onWarning }),
            ...(config.now === undefined ? {} : { now: config.now }),
          });
    if (this.#listener !== null) this.changes.attach(this.#listener);
  }

  /** Starts the LISTEN connection (it retries by itself when the database is away). */
  async start(): Promise<void> {
    await this.#listener?.start();
  }

  transaction<T>(work: (tx: StorageTx) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    return inTransaction(this.#pool, (client) => work(this.#bind(client)), options);
  }

  async ping(): Promise<void> {
    await new Executor(this.#pool, this.#pool, { inTransaction: false, prepare: false }).run('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#listener?.close();
    await this.#pool.end();
  }

  /** The stores bound to one transaction's connection. */
  #bind(client: pg.PoolClient): StorageTx {
    const sql = new Executor(client, this.#pool, { inTransaction: true, prepare: this.#prepare });
    return {
      users: new PostgresUserStore(sql),
      keys: new PostgresApiKeyStore(sql),
      sessions: new PostgresSessionStore(sql),
      bruteForce: new PostgresBruteForceStore(sql),
      settings: new PostgresSettingsStore(sql),
      models: new PostgresModelStore(sql),
      families: new PostgresModelFamilyStore(sql),
      oidc: new PostgresOidcStore(sql),
      secretFingerprints: new PostgresSecretFingerprintStore(sql),
    };
  }
}

/**
 * Opens svc's PostgreSQL database: migrates it (under the migration lock), opens the pool and the
 * LISTEN connection.
 *
 * @throws StorageSchemaError when the schema is newer than this server or a migration was edited;
 *   StorageUnavailableError when the server cannot be reached (the message never holds the password).
 * @example
 * const storage = await openPostgresStorage({ url: 'postgres://svc:secret@db:5432/svc', poolMax: 10 });
 */
export async function openPostgresStorage(config: PostgresStorageConfig): Promise<PostgresStorage> {
  await new PostgresMigrator(connectionConfig(config)).migrate();
  const storage = new PostgresStorage(config);
  await storage.start();
  return storage;
}
