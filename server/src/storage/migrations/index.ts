/**
 * The numbered schema migrations, applied in order of their numbers. Never edit a released
 * migration: add the next number. `PRAGMA user_version` records the number of the last one applied.
 *
 * Numbers may have gaps (branches add migrations in parallel and are merged later): the runner applies
 * every migration whose number is above the database's `user_version`, in ascending order, and then
 * sets `user_version` to the highest number it knows.
 */
import { initialSchema } from './001-initial-schema.js';
import { modelsSchema } from './002-models.js';
import { bruteForceAndAudit } from './003-brute-force-and-audit.js';
import { cacheEpochs } from './004-cache-epochs.js';
import { loginReservations } from './010-login-reservations.js';
import { revokedKeyTombstones } from './011-revoked-key-tombstones.js';
import { refreshGraceExchanges } from './012-refresh-grace-exchanges.js';
import { apiKeyRateLimits } from './015-api-key-rate-limits.js';
import { oidcSchema } from './020-oidc.js';
import { sqliteCacheEpochs } from './021-sqlite-cache-epochs.js';
import { binaryAuditDigests } from './022-binary-audit-digests.js';
import { usageAndLimits } from './030-usage-and-limits.js';
import { keyLimitsCacheEpoch } from './031-key-limits-cache-epoch.js';
import { codedAuditRecords } from './035-coded-audit-records.js';
import { secretFingerprints } from './040-secret-fingerprints.js';
import { postgresAuditTuples } from './045-postgres-audit-tuples.js';
import { apiKeyLookupSlots } from './047-api-key-lookup-slots.js';

/** One schema step. */
export interface Migration {
  /** The migration's number: the `NNN` of its file name `NNN-name.ts`. */
  version: number;
  name: string;
  /** The SQLite dialect. */
  sql: string;
  /**
   * The PostgreSQL dialect (`storage/postgres/migrator.ts`), the same tables, columns and indexes
   * in PostgreSQL's types. Empty only with a comment saying why.
   */
  postgres: string;
}

/** Every migration, in ascending order of `version`. */
export const migrations: readonly Migration[] = [
  initialSchema,
  modelsSchema,
  bruteForceAndAudit,
  cacheEpochs,
  loginReservations,
  revokedKeyTombstones,
  refreshGraceExchanges,
  apiKeyRateLimits,
  oidcSchema,
  sqliteCacheEpochs,
  binaryAuditDigests,
  usageAndLimits,
  keyLimitsCacheEpoch,
  codedAuditRecords,
  secretFingerprints,
  postgresAuditTuples,
  apiKeyLookupSlots,
];

/** The migrations that a database at `currentVersion` still needs, in order. */
export function pendingMigrations(currentVersion: number, all: readonly Migration[] = migrations): Migration[] {
  const sorted = [...all].sort((a, b) => a.version - b.version);
  for (let index = 1; index < sorted.length; index += 1) {
    if (sorted[index]?.version === sorted[index - 1]?.version) throw new Error(`two migrations share number ${sorted[index]?.version}`);
  }
  return sorted.filter((migration) => migration.version > currentVersion);
}

/** The schema version the code expects: the highest migration number. */
export function latestVersion(all: readonly Migration[] = migrations): number {
  return all.reduce((highest, migration) => Math.max(highest, migration.version), 0);
}
