/**
 * The storage of the service: one database connection, its change tracker and the repositories
 * over it, with {@link Storage.transaction} for changes that must check and write atomically.
 */
import { ApiKeysRepository } from './api-keys-repository.js';
import { AuditRepository } from './audit-repository.js';
import { BruteForceRepository } from './brute-force-repository.js';
import { ChangeTracker } from './change-tracker.js';
import { openDatabase, openDatabaseReadOnly, type Database } from './database.js';
import { ModelFamiliesRepository } from './model-families-repository.js';
import { ModelsRepository } from './models-repository.js';
import { OidcRepository } from './oidc-repository.js';
import { RefreshSessionsRepository } from './refresh-sessions-repository.js';
import { UsersRepository } from './users-repository.js';

/** Everything stored, behind repositories. */
export class Storage {
  readonly db: Database;
  readonly tracker: ChangeTracker;
  readonly users: UsersRepository;
  readonly apiKeys: ApiKeysRepository;
  readonly sessions: RefreshSessionsRepository;
  readonly models: ModelsRepository;
  readonly modelFamilies: ModelFamiliesRepository;
  readonly bruteForce: BruteForceRepository;
  readonly audit: AuditRepository;
  readonly oidc: OidcRepository;

  constructor(db: Database) {
    this.db = db;
    this.tracker = new ChangeTracker(db);
    this.users = new UsersRepository(db, this.tracker);
    this.apiKeys = new ApiKeysRepository(db, this.tracker);
    this.sessions = new RefreshSessionsRepository(db);
    this.models = new ModelsRepository(db, this.tracker);
    this.modelFamilies = new ModelFamiliesRepository(db);
    this.bruteForce = new BruteForceRepository(db, this.tracker);
    this.audit = new AuditRepository(db);
    this.oidc = new OidcRepository(db, this.tracker);
  }

  /** Opens the database at `path` (migrating it) and wraps it. */
  static open(path: string): Storage {
    return new Storage(openDatabase(path));
  }

  /**
   * Opens an existing, migrated database at `path` read-only (no file created, nothing written); null
   * when there is none yet. Only reads may be made through the result.
   */
  static openReadOnly(path: string): Storage | null {
    const db = openDatabaseReadOnly(path);
    return db === null ? null : new Storage(db);
  }

  /**
   * Runs `work` in an immediate (write-locked) transaction: reads inside it see no concurrent
   * writer, so a check and the write it guards happen atomically across processes.
   */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  close(): void {
    this.db.close();
  }
}
