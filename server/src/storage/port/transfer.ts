/**
 * Bulk transfer through the storage port: every table of svc's state read page by page and written
 * back as stored (ids, hashes, ciphertexts and times untouched), for `svc-migrate-storage`, which
 * moves a deployment from one adapter to the other. Rows travel in a neutral shape: text as strings,
 * integers as numbers, booleans as booleans or 0/1, binary columns as `Buffer`s.
 */
import type { StorageUnavailableError } from './errors.js';

/** One row of a table, column name to value. */
export type TransferRow = Record<string, unknown>;

/** A table that moves with a deployment. */
export interface TransferTable {
  readonly name: string;
  /** Its primary key's columns: what "already there" means when importing. */
  readonly primaryKey: readonly string[];
}

/**
 * Every table that holds a deployment's state, parents before children (foreign keys hold at every
 * step). The adapters' own bookkeeping ({@link bookkeepingTables}, and PostgreSQL's
 * `audit_chain_head`) is not listed: the target keeps its own, and importing the audit log moves its
 * chain head.
 */
export const transferTables: readonly TransferTable[] = [
  { name: 'users', primaryKey: ['id'] },
  { name: 'user_permissions', primaryKey: ['user_id', 'permission'] },
  { name: 'oidc_identities', primaryKey: ['issuer', 'subject'] },
  { name: 'api_keys', primaryKey: ['key_hash'] },
  { name: 'revoked_api_keys', primaryKey: ['key_hash'] },
  { name: 'refresh_families', primaryKey: ['id'] },
  { name: 'refresh_tokens', primaryKey: ['token_hash'] },
  { name: 'oidc_login_requests', primaryKey: ['state_hash'] },
  { name: 'oidc_cli_codes', primaryKey: ['code_hash'] },
  { name: 'security_settings', primaryKey: ['id'] },
  { name: 'brute_force_entries', primaryKey: ['scope', 'subject'] },
  { name: 'model_families', primaryKey: ['model_type', 'model_name'] },
  { name: 'models', primaryKey: ['uid'] },
  { name: 'audit_chain_anchor', primaryKey: ['id'] },
  { name: 'audit_log', primaryKey: ['id'] },
  { name: 'usage_totals', primaryKey: ['hour_start', 'key_id', 'user_id', 'model'] },
  { name: 'limit_counters', primaryKey: ['subject'] },
  { name: 'limit_slots', primaryKey: ['subject', 'holder'] },
];

/**
 * Tables of each database's own that never move: the cache epochs (every target counts its own) and
 * the secret fingerprints (the target records the secrets it is first started with).
 */
export const bookkeepingTables: readonly string[] = ['cache_epochs', 'secret_fingerprints'];

/** Writes rows into the tables, all within one transaction (see {@link TableTransfer.importing}). */
export interface TableImporter {
  /**
   * Inserts the rows whose primary key is not in the table yet, as they are; a row whose key is
   * there is left untouched (never overwritten). Answers how many were inserted. Importing
   * `audit_log` also moves the adapter's chain head to the newest record, so appends continue the
   * imported chain.
   *
   * @throws on a conflict on another unique column (a username taken by another id) or a broken
   *   foreign key (the adapter's constraint error), {@link StorageUnavailableError} when the database
   *   fails; either way the whole import is rolled back.
   */
  insertMissing(table: TransferTable, rows: readonly TransferRow[]): Promise<number>;
}

/** Reads and writes whole tables, for moving a deployment between adapters. */
export interface TableTransfer {
  /** How many rows `table` holds. */
  count(table: TransferTable): Promise<number>;
  /** Every row of `table`, in primary-key order, `pageSize` at a time. */
  pages(table: TransferTable, pageSize: number): AsyncIterable<TransferRow[]>;
  /** Runs `work` in one transaction: everything it imports commits together or not at all. */
  importing<T>(work: (importer: TableImporter) => Promise<T>): Promise<T>;
}

/**
 * A primary key as one comparable string, the same whichever adapter read the row (`Buffer`s as
 * hex, numbers and numeric strings alike).
 */
export function primaryKeyOf(table: TransferTable, row: TransferRow): string {
  return JSON.stringify(table.primaryKey.map((column) => comparable(row[column])));
}

function comparable(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return `x:${value.toString('hex')}`;
  if (value instanceof Uint8Array) return `x:${Buffer.from(value).toString('hex')}`;
  return `v:${String(value)}`;
}
