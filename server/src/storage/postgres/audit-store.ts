/**
 * The audit trail on PostgreSQL: one hash chain for the whole deployment. Every append locks the
 * chain-head row (`audit_chain_head`, `FOR UPDATE`) and numbers its records from it, so id order is
 * chain order with no gaps, whichever host wrote them; `audit/` computes each link ({@link ChainLink})
 * and this store only keeps it. Records are stored coded (`audit_entries`, `audit_tuples`,
 * `audit_strings`: migrations 035 and 045, `audit-coding.ts`) and read through the view `audit_log`;
 * filters are built in `audit-filter.ts`. Verification reads one REPEATABLE READ snapshot, so a prune
 * running meanwhile cannot fake a break; pruning runs on one host at a time (a try-lock).
 */
import type pg from 'pg';
import type { AuditAppend, AuditColumn, AuditFilter, AuditRecord, AuditStore, ChainAnchor, ChainLink, ChainReader, StoredAuditRecord } from '../port/index.js';
import { InternedStrings } from '../audit-codes.js';
import { entryRow, INSERT_ENTRIES, insertEntries, internRecords, type InternCaches, type RecordTupleKeys } from './audit-coding.js';
import { distinctValuesQuery, whereClause } from './audit-filter.js';
import type { Executor } from './executor.js';
import { toStorageError } from './errors.js';
import { advisoryKey, connect } from './transaction.js';

/** The fields of a record, in the order of the view's columns. */
const fields = [
  'timestamp', 'event_type', 'category', 'auth_type', 'user_id', 'username', 'api_key_id', 'api_key_name', 'api_key_prefix', 'model_id',
  'model_name', 'model_type', 'method', 'route', 'endpoint', 'action', 'target', 'status', 'http_status', 'reason', 'request_id',
  'latency_ms', 'client_ip', 'details',
] as const satisfies readonly (keyof AuditRecord)[];
const IMPORT = `${INSERT_ENTRIES} ON CONFLICT (id) DO NOTHING`;
/** Every column of a stored record, decoded by the view `audit_log`, digests in hex. */
const SELECT_RECORD = `SELECT id, ${fields.join(', ')}, coalesce(encode(prev_hash, 'hex'), '') AS prev_hash, encode(hash, 'hex') AS hash FROM audit_log`;

const distinctColumns: ReadonlySet<AuditColumn> = new Set(['username', 'api_key_name', 'model_id', 'model_name', 'model_type', 'category', 'auth_type', 'status', 'client_ip', 'event_type', 'action']);

/** SQL: every tuple id the records use (for pruning unused tuples). */
const USED_TUPLES = ['shape', 'caller', 'api_key'].map((column) => `SELECT ${column} FROM audit_entries WHERE ${column} IS NOT NULL`).join(' UNION ');
/** SQL: every string id the records use (client IPs other than dotted-quad IPv4). */
const USED_STRINGS = 'SELECT client_ip FROM audit_entries WHERE client_ip IS NOT NULL';

/**
 * Imports records as `svc-migrate-storage` reads them (the view's columns: text decoded, digests as
 * bytes), coding them for this database; a record whose id is there already is left untouched.
 * Answers how many were inserted. The caller holds the chain head's lock inside its transaction.
 */
export async function importAuditRows(sql: Executor, rows: readonly Record<string, unknown>[]): Promise<number> {
  const records = rows.map((row) => row as unknown as AuditRecord & { id: number | string; hash: Buffer | string });
  const { codes, tupleKeys } = await internRecords(sql, records, null);
  const entries = records.map((record, index) =>
    entryRow(codes, Number(record.id), record, tupleKeys[index] as RecordTupleKeys, Buffer.isBuffer(record.hash) ? record.hash.toString('hex') : String(record.hash)),
  );
  return insertEntries(sql, IMPORT, entries);
}

/** {@link AuditStore} on PostgreSQL. */
export class PostgresAuditStore implements AuditStore {
  readonly #sql: Executor;
  readonly #pool: pg.Pool;
  /** The ids of strings and tuples this store has interned (committed ones only). */
  readonly #interned: InternCaches = { strings: new InternedStrings(), tuples: new InternedStrings() };

  constructor(sql: Executor, pool: pg.Pool) {
    this.#sql = sql;
    this.#pool = pool;
  }

  async append(batch: readonly AuditAppend[], link: ChainLink, genesisHash: string): Promise<void> {
    if (batch.length === 0) return;
    const learned = await this.#sql.atomically(async (sql) => {
      const head = await sql.first<{ last_id: number; last_hash: string; strings_pruned: number | null }>(
        'SELECT h.last_id, h.last_hash, (SELECT a.strings_pruned FROM audit_chain_anchor a WHERE a.id = 1) AS strings_pruned FROM audit_chain_head h WHERE h.id = 1 FOR UPDATE OF h',
      );
      if (head === null) throw new Error('audit_chain_head has no row: the schema is incomplete');
      this.#interned.strings.sync(head.strings_pruned ?? 0);
      this.#interned.tuples.sync(head.strings_pruned ?? 0);
      const interned = await internRecords(sql, batch.map(({ record }) => record), this.#interned);
      const rows: unknown[][] = [];
      let previous = head.last_id === 0 ? genesisHash : head.last_hash;
      let id = head.last_id;
      for (const [index, { record, encoding }] of batch.entries()) {
        id += 1;
        const hash = link(previous, encoding);
        rows.push(entryRow(interned.codes, id, record, interned.tupleKeys[index] as RecordTupleKeys, hash));
        previous = hash;
      }
      await insertEntries(sql, INSERT_ENTRIES, rows);
      await sql.run('UPDATE audit_chain_head SET last_id = $1, last_hash = $2 WHERE id = 1', [id, previous]);
      return interned;
    });
    this.#interned.strings.commit(learned.learnedStrings);
    this.#interned.tuples.commit(learned.learnedTuples);
  }

  async search(filter: AuditFilter, offset: number, limit: number): Promise<{ hits: StoredAuditRecord[]; total: number }> {
    const where = await whereClause(this.#sql, filter);
    if (where === null) return { hits: [], total: 0 };
    const count = await this.#sql.first<{ count: number }>(`SELECT count(*) AS count FROM audit_entries e WHERE ${where.sql}`, where.values);
    const hits = await this.#sql.rows<StoredAuditRecord>(
      `${SELECT_RECORD} WHERE id IN (SELECT e.id FROM audit_entries e WHERE ${where.sql} ORDER BY e.timestamp DESC, e.id DESC ` +
        `LIMIT $${where.values.length + 1} OFFSET $${where.values.length + 2}) ORDER BY timestamp DESC, id DESC`,
      [...where.values, limit, offset],
    );
    return { hits, total: count?.count ?? 0 };
  }

  async exportPage(filter: AuditFilter, before: { timestamp: number; id: number } | null, limit: number): Promise<StoredAuditRecord[]> {
    const where = await whereClause(this.#sql, filter);
    if (where === null) return [];
    const values = [...where.values];
    let cursor = '';
    if (before !== null) {
      values.push(before.timestamp, before.id);
      cursor = ` AND (e.timestamp < $${values.length - 1} OR (e.timestamp = $${values.length - 1} AND e.id < $${values.length}))`;
    }
    values.push(limit);
    return this.#sql.rows<StoredAuditRecord>(
      `${SELECT_RECORD} WHERE id IN (SELECT e.id FROM audit_entries e WHERE ${where.sql}${cursor} ORDER BY e.timestamp DESC, e.id DESC LIMIT $${values.length}) ` +
        'ORDER BY timestamp DESC, id DESC',
      values,
    );
  }

  async distinctValues(column: AuditColumn, timeFrom: number, timeTo: number, limit: number): Promise<string[]> {
    if (!distinctColumns.has(column)) throw new Error(`not an audit filter column: ${column}`);
    const rows = await this.#sql.rows<{ value: string }>(distinctValuesQuery(column), [timeFrom, timeTo, limit]);
    return rows.map((row) => row.value);
  }

  /** A dedicated connection in a REPEATABLE READ READ ONLY transaction: the anchor and every page from one snapshot. */
  async openChainReader(): Promise<ChainReader> {
    const client = await connect(this.#pool);
    const query = async <Row extends object>(text: string, values: unknown[] = []): Promise<Row[]> => {
      try {
        return (await client.query<Row>(text, values)).rows;
      } catch (error) {
        throw toStorageError(error);
      }
    };
    try {
      await query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const [anchorRow] = await query<{ last_pruned_id: number; last_pruned_hash: string }>('SELECT last_pruned_id, last_pruned_hash FROM audit_chain_anchor WHERE id = 1');
      const anchor: ChainAnchor | null = anchorRow === undefined ? null : { lastPrunedId: anchorRow.last_pruned_id, lastPrunedHash: anchorRow.last_pruned_hash };
      let released = false;
      return {
        anchor,
        async *pages(pageSize: number): AsyncIterable<StoredAuditRecord[]> {
          let afterId = anchor?.lastPrunedId ?? 0;
          for (;;) {
            const page = await query<StoredAuditRecord>(`${SELECT_RECORD} WHERE id > $1 ORDER BY id LIMIT $2`, [afterId, pageSize]);
            if (page.length > 0) yield page;
            const last = page.at(-1);
            if (last === undefined || page.length < pageSize) return;
            afterId = last.id;
          }
        },
        async close(): Promise<void> {
          if (released) return;
          released = true;
          const failure = await client.query('COMMIT').then(
            () => undefined,
            (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
          );
          client.release(failure);
        },
      };
    } catch (error) {
      client.release(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
  }

  /** Deletes a prefix of the chain older than `before` and moves the anchor; 0 at once when another host is pruning. */
  async pruneOlderThan(before: number, batch: number, now: number): Promise<number> {
    return this.#sql.atomically(async (sql) => {
      const lock = await sql.first<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(${advisoryKey('audit-prune')}) AS locked`);
      if (lock?.locked !== true) return 0;
      const last = await sql.first<{ id: number }>(
        'SELECT id FROM (SELECT id FROM audit_entries WHERE timestamp < $1 ORDER BY id LIMIT $2) oldest ORDER BY id DESC LIMIT 1',
        [before, batch],
      );
      if (last === null) return 0;
      // Only a prefix of the chain may go: stop before the first record that is still young.
      const firstYoung = await sql.first<{ id: number }>('SELECT id FROM audit_entries WHERE timestamp >= $1 ORDER BY id LIMIT 1', [before]);
      const upTo = firstYoung === null ? last.id : Math.min(last.id, firstYoung.id - 1);
      const anchor = await sql.first<{ id: number; hash: string }>("SELECT id, encode(hash, 'hex') AS hash FROM audit_entries WHERE id <= $1 ORDER BY id DESC LIMIT 1", [upTo]);
      if (anchor === null) return 0;
      const deleted = await sql.run('DELETE FROM audit_entries WHERE id <= $1', [anchor.id]);
      await sql.run(
        `INSERT INTO audit_chain_anchor (id, last_pruned_id, last_pruned_hash, pruned_at) VALUES (1, $1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET last_pruned_id = excluded.last_pruned_id, last_pruned_hash = excluded.last_pruned_hash, pruned_at = excluded.pruned_at`,
        [anchor.id, anchor.hash, now],
      );
      return deleted;
    });
  }

  /**
   * Deletes the tuples and strings no record uses any more (answers how many), under the chain head's
   * lock, so no append is interning meanwhile.
   */
  async pruneUnusedStrings(): Promise<number> {
    return this.#sql.atomically(async (sql) => {
      await sql.run('SELECT 1 FROM audit_chain_head WHERE id = 1 FOR UPDATE');
      // Only after a pruning (the anchor counts it, so every writer's cache learns of it).
      const pruned = 'EXISTS (SELECT 1 FROM audit_chain_anchor WHERE id = 1)';
      const tuples = await sql.run(`DELETE FROM audit_tuples WHERE id NOT IN (${USED_TUPLES}) AND ${pruned}`);
      const deleted = await sql.run(`DELETE FROM audit_strings WHERE id NOT IN (${USED_STRINGS}) AND ${pruned}`);
      if (deleted + tuples > 0) await sql.run('UPDATE audit_chain_anchor SET strings_pruned = strings_pruned + 1 WHERE id = 1');
      return deleted + tuples;
    });
  }

  async count(): Promise<number> {
    return (await this.#sql.first<{ count: number }>('SELECT count(*) AS count FROM audit_entries'))?.count ?? 0;
  }
}
