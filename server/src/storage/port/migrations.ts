/** Schema migrations through the storage port. */

/** Where a database's schema stands. */
export interface MigrationStatus {
  current: number;
  latest: number;
  applied: readonly number[];
}

/** Applies pending migrations under a lock, so several hosts starting together migrate once. */
export interface Migrator {
  migrate(): Promise<MigrationStatus>;
  /** What `migrate` would apply, without applying it (readiness, dry runs). */
  status(): Promise<MigrationStatus>;
}
