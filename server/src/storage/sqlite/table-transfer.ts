/**
 * {@link TableTransfer} on SQLite: whole tables read page by page (keyset paging on one-column keys)
 * and rows inserted as stored, `ON CONFLICT (<primary key>) DO NOTHING`, in one `BEGIN IMMEDIATE`
 * transaction on the writer connection. `audit_log` is a view (migration 035): its rows are read
 * decoded and imported through the audit store's coding. `api_keys` travels without SQLite's own
 * lookup slot (migration 047), which the key store gives each imported key.
 */
import type { TableImporter, TableTransfer, TransferRow, TransferTable } from '../port/index.js';
import { apiKeyColumns, importApiKeyRows } from './api-keys-store.js';
import { importAuditRows } from './audit-store.js';
import type { Database } from './database.js';
import { toStorageError } from './errors.js';

/** Runs `work` with the writer connection inside one immediate transaction. */
export type ExclusiveWrite = <T>(work: (writer: Database) => Promise<T>) => Promise<T>;

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** The columns a table's rows travel with: all of them, but for SQLite's own `api_keys.slot`. */
const travelling = (table: TransferTable): string => (table.name === 'api_keys' ? apiKeyColumns.map(quoted).join(', ') : '*');

/** SQLite stores booleans as 0/1 and JSON as text. */
function sqliteValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value) && !(value instanceof Uint8Array)) return JSON.stringify(value);
  return value;
}

/** A row with each value as SQLite stores it ({@link sqliteValue}). */
const sqliteRow = (row: TransferRow): TransferRow => Object.fromEntries(Object.entries(row).map(([column, value]) => [column, sqliteValue(value)]));

/** {@link TableTransfer} on one SQLite database. */
export class SqliteTableTransfer implements TableTransfer {
  readonly #reader: Database;
  readonly #exclusive: ExclusiveWrite;

  constructor(reader: Database, exclusive: ExclusiveWrite) {
    this.#reader = reader;
    this.#exclusive = exclusive;
  }

  async count(table: TransferTable): Promise<number> {
    try {
      return (this.#reader.prepare(`SELECT count(*) AS n FROM ${quoted(table.name)}`).get() as { n: number }).n;
    } catch (error) {
      throw toStorageError(error);
    }
  }

  async *pages(table: TransferTable, pageSize: number): AsyncIterable<TransferRow[]> {
    const columns = travelling(table);
    const order = table.primaryKey.map(quoted).join(', ');
    const [single] = table.primaryKey;
    const keyset = table.primaryKey.length === 1 && single !== undefined;
    let after: unknown = null;
    let offset = 0;
    for (;;) {
      let page: TransferRow[];
      try {
        page = keyset
          ? after === null
            ? (this.#reader.prepare(`SELECT ${columns} FROM ${quoted(table.name)} ORDER BY ${order} LIMIT ?`).all(pageSize) as TransferRow[])
            : (this.#reader.prepare(`SELECT ${columns} FROM ${quoted(table.name)} WHERE ${order} > ? ORDER BY ${order} LIMIT ?`).all(after, pageSize) as TransferRow[])
          : (this.#reader.prepare(`SELECT ${columns} FROM ${quoted(table.name)} ORDER BY ${order} LIMIT ? OFFSET ?`).all(pageSize, offset) as TransferRow[]);
      } catch (error) {
        throw toStorageError(error);
      }
      if (page.length === 0) return;
      yield page;
      if (page.length < pageSize) return;
      offset += page.length;
      if (keyset) after = page[page.length - 1]?.[single];
    }
  }

  importing<T>(work: (importer: TableImporter) => Promise<T>): Promise<T> {
    return this.#exclusive((writer) => work({ insertMissing: async (table, rows) => insertMissing(writer, table, rows) }));
  }
}

/**
 * The tables whose rows their store writes, not a plain `INSERT`: the audit log is read through its
 * view (text decoded) and its records are coded for this database; API keys are written at their
 * lookup slot, which the rows do not carry.
 */
const storeImporters = new Map<string, (writer: Database, rows: readonly TransferRow[]) => number>([
  ['audit_log', importAuditRows],
  ['api_keys', (writer, rows) => importApiKeyRows(writer, rows.map(sqliteRow))],
]);

function insertMissing(writer: Database, table: TransferTable, rows: readonly TransferRow[]): number {
  const importRows = storeImporters.get(table.name);
  if (importRows !== undefined) {
    try {
      return importRows(writer, rows);
    } catch (error) {
      throw toStorageError(error);
    }
  }
  let inserted = 0;
  for (const row of rows) {
    const columns = Object.keys(row);
    const sql =
      `INSERT INTO ${quoted(table.name)} (${columns.map(quoted).join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ` +
      `ON CONFLICT (${table.primaryKey.map(quoted).join(', ')}) DO NOTHING`;
    try {
      inserted += writer.prepare(sql).run(...columns.map((column) => sqliteValue(row[column]))).changes;
    } catch (error) {
      throw toStorageError(error);
    }
  }
  return inserted;
}
