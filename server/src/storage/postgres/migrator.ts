/**
 * Schema migrations on PostgreSQL: the `postgres` dialect of every numbered migration, each applied
 * in its own transaction and recorded in `schema_migrations` with the SHA-256 of its SQL. Several
 * hosts starting together queue on a session advisory lock, so each migration runs once; a host
 * that dies while holding it releases it with its connection. A database whose schema is newer than
 * this server, or whose applied migration was edited since, stops start-up with
 * {@link StorageSchemaError}.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { migrations as allMigrations, latestVersion, type Migration } from '../migrations/index.js';
import { StorageSchemaError } from '../port/errors.js';
import type { MigrationStatus, Migrator } from '../port/index.js';
import { errorCode, toStorageError } from './errors.js';
import { advisoryKey } from './transaction.js';

/** How long a host waits for another host's migration before giving up. */
const LOCK_WAIT_MS = 20_000;

const CREATE_LEDGER = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    integer PRIMARY KEY,
  name       text NOT NULL,
  checksum   text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** The checksum recorded for a migration: SHA-256 of its PostgreSQL SQL. */
export const migrationChecksum = (migration: Migration): string => createHash('sha256').update(migration.postgres).digest('hex');

/** Options of {@link PostgresMigrator}. */
export interface PostgresMigratorOptions {
  /** The migrations to apply (tests); every migration of this server by default. */
  migrations?: readonly Migration[];
  /** How long to wait for another host's migration lock, in milliseconds. @default 20000 */
  lockWaitMs?: number;
}

/** {@link Migrator} on PostgreSQL, on a connection of its own (no statement timeout while migrating). */
export class PostgresMigrator implements Migrator {
  readonly #connection: pg.ClientConfig;
  readonly #migrations: readonly Migration[];
  readonly #lockWaitMs: number;

  constructor(connection: pg.ClientConfig, options: PostgresMigratorOptions = {}) {
    this.#connection = connection;
    this.#migrations = [...(options.migrations ?? allMigrations)].sort((a, b) => a.version - b.version);
    this.#lockWaitMs = options.lockWaitMs ?? LOCK_WAIT_MS;
    for (let index = 1; index < this.#migrations.length; index += 1) {
      if (this.#migrations[index]?.version === this.#migrations[index - 1]?.version) throw new Error(`two migrations share number ${this.#migrations[index]?.version}`);
    }
  }

  /** Where the schema stands, changing nothing: `applied` lists what {@link migrate} would apply. */
  async status(): Promise<MigrationStatus> {
    return this.#withClient(async (client) => {
      const exists = await client.query<{ ledger: string | null }>("SELECT to_regclass('schema_migrations')::text AS ledger");
      const applied = exists.rows[0]?.ledger == null ? new Map<number, string>() : await this.#applied(client);
      const pending = this.#migrations.filter((migration) => !applied.has(migration.version)).map((migration) => migration.version);
      return this.#statusOf(applied, pending);
    });
  }

  /** Applies every migration not yet recorded, in ascending order, under the migration lock; `applied` lists those it applied. */
  async migrate(): Promise<MigrationStatus> {
    return this.#withClient(async (client) => {
      await client.query(`SET lock_timeout = ${Math.max(1, Math.round(this.#lockWaitMs))}`);
      try {
        await client.query(`SELECT pg_advisory_lock(${advisoryKey('migrate')})`);
      } catch (error) {
        if (errorCode(error) === '55P03') {
          throw new StorageSchemaError(`another svc process has held the migration lock for ${this.#lockWaitMs / 1000} s; is one stuck migrating?`, { cause: error });
        }
        throw error;
      }
      await client.query('SET lock_timeout = 0');
      try {
        await client.query(CREATE_LEDGER);
        const applied = await this.#applied(client);
        this.#statusOf(applied, []); // refuse a newer or edited schema before touching it
        const newlyApplied: number[] = [];
        for (const migration of this.#migrations) {
          if (applied.has(migration.version)) continue;
          await client.query('BEGIN');
          try {
            await client.query(migration.postgres);
            await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [migration.version, migration.name, migrationChecksum(migration)]);
            await client.query('COMMIT');
          } catch (error) {
            await client.query('ROLLBACK').catch(() => undefined);
            throw new StorageSchemaError(`migration ${migration.name} failed on PostgreSQL: ${(error as Error).message}`, { cause: error });
          }
          applied.set(migration.version, migrationChecksum(migration));
          newlyApplied.push(migration.version);
        }
        return this.#statusOf(applied, newlyApplied);
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${advisoryKey('migrate')})`).catch(() => undefined);
      }
    });
  }

  async #applied(client: pg.Client): Promise<Map<number, string>> {
    const { rows } = await client.query<{ version: number; checksum: string }>('SELECT version, checksum FROM schema_migrations ORDER BY version');
    return new Map(rows.map((row) => [row.version, row.checksum]));
  }

  /** The status, after refusing a newer schema and edited migrations. */
  #statusOf(applied: ReadonlyMap<number, string>, newlyApplied: number[]): MigrationStatus {
    const latest = latestVersion(this.#migrations);
    const current = Math.max(0, ...applied.keys());
    if (current > latest) {
      throw new StorageSchemaError(`the database schema (version ${current}) is newer than this server (version ${latest}); upgrade svc`);
    }
    for (const migration of this.#migrations) {
      const checksum = applied.get(migration.version);
      if (checksum !== undefined && checksum !== migrationChecksum(migration)) {
        throw new StorageSchemaError(`migration ${migration.name} was changed after it was applied to this database; restore its released text and add a new migration instead`);
      }
    }
    return { current, latest, applied: newlyApplied };
  }

  async #withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ ...this.#connection, statement_timeout: 0, application_name: 'svc-migrator' });
    client.on('error', () => {}); // a lost connection surfaces as the failing query's error
    try {
      await client.connect();
    } catch (error) {
      throw toStorageError(error);
    }
    try {
      return await work(client);
    } catch (error) {
      throw toStorageError(error);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
