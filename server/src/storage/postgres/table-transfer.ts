/**
 * {@link TableTransfer} on PostgreSQL: whole tables read page by page (keyset paging on one-column
 * keys) and rows inserted as stored, `ON CONFLICT (<primary key>) DO NOTHING`, in one transaction.
 * Importing the audit log (or its anchor) moves `audit_chain_head` to the newest imported link, so the
 * next append continues the imported chain with the next id.
 */
import type pg from 'pg';
import type { TableImporter, TableTransfer, TransferRow, TransferTable } from '../port/index.js';
import { importAuditRows } from './audit-store.js';
import { Executor } from './executor.js';
import { inTransaction } from './transaction.js';

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters for the widest table (audit_log). */
const ROWS_PER_STATEMENT = 500;

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** {@link TableTransfer} on one PostgreSQL database. */
export class PostgresTableTransfer implements TableTransfer {
  readonly #pool: pg.Pool;
  readonly #sql: Executor;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
    this.#sql = new Executor(pool, pool, { inTransaction: false, prepare: false });
  }

  async count(table: TransferTable): Promise<number> {
    const row = await this.#sql.first<{ n: number }>(`SELECT count(*)::int AS n FROM ${quoted(table.name)}`);
    return row?.n ?? 0;
  }

  async *pages(table: TransferTable, pageSize: number): AsyncIterable<TransferRow[]> {
    const order = table.primaryKey.map(quoted).join(', ');
    const [single] = table.primaryKey;
    const keyset = table.primaryKey.length === 1 && single !== undefined;
    let after: unknown = null;
    let offset = 0;
    for (;;) {
      const page = keyset
        ? after === null
          ? await this.#sql.rows<TransferRow>(`SELECT * FROM ${quoted(table.name)} ORDER BY ${order} LIMIT $1`, [pageSize])
          : await this.#sql.rows<TransferRow>(`SELECT * FROM ${quoted(table.name)} WHERE ${order} > $1 ORDER BY ${order} LIMIT $2`, [after, pageSize])
        : await this.#sql.rows<TransferRow>(`SELECT * FROM ${quoted(table.name)} ORDER BY ${order} LIMIT $1 OFFSET $2`, [pageSize, offset]);
      if (page.length === 0) return;
      yield page;
      if (page.length < pageSize) return;
      offset += page.length;
      if (keyset) after = page[page.length - 1]?.[single];
    }
  }

  importing<T>(work: (importer: TableImporter) => Promise<T>): Promise<T> {
    return inTransaction(
      this.#pool,
      (client) => {
        const sql = new Executor(client, this.#pool, { inTransaction: true, prepare: false });
        return work({ insertMissing: (table, rows) => insertMissing(sql, table, rows) });
      },
      {},
    );
  }
}

async function insertMissing(sql: Executor, table: TransferTable, rows: readonly TransferRow[]): Promise<number> {
  const auditTable = table.name === 'audit_log' || table.name === 'audit_chain_anchor';
  // Appends lock the head first: an import into a live database waits for them, and they for it.
  if (auditTable) await sql.run('SELECT 1 FROM audit_chain_head WHERE id = 1 FOR UPDATE');
  // The audit log is read through its view (text decoded); its records are coded for this database.
  const inserted = table.name === 'audit_log' ? await importAuditRows(sql, rows) : await insertRows(sql, table, rows);
  if (auditTable) await moveChainHead(sql);
  return inserted;
}

/** Inserts the rows whose primary key is not there yet, as they are. */
async function insertRows(sql: Executor, table: TransferTable, rows: readonly TransferRow[]): Promise<number> {
  let inserted = 0;
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
    const [first] = chunk;
    if (first === undefined) break;
    const columns = Object.keys(first);
    const values: unknown[] = [];
    const tuples = chunk.map((row) => `(${columns.map((column) => `$${values.push(row[column] ?? null)}`).join(', ')})`);
    inserted += await sql.run(
      `INSERT INTO ${quoted(table.name)} (${columns.map(quoted).join(', ')}) VALUES ${tuples.join(', ')} ON CONFLICT (${table.primaryKey.map(quoted).join(', ')}) DO NOTHING`,
      values,
    );
  }
  return inserted;
}

/** Points the chain head at the newest record (or, with none left, the anchor) when that is ahead of it. */
async function moveChainHead(sql: Executor): Promise<void> {
  await sql.run(
    `UPDATE audit_chain_head AS head SET last_id = newest.id, last_hash = newest.hash
       FROM (SELECT id, hash FROM (
               SELECT id, encode(hash, 'hex') AS hash FROM audit_entries
               UNION ALL SELECT last_pruned_id, last_pruned_hash FROM audit_chain_anchor
             ) AS links ORDER BY id DESC LIMIT 1) AS newest
      WHERE head.id = 1 AND newest.id > head.last_id`,
  );
}
