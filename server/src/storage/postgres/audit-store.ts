/**
 * The audit trail on PostgreSQL: one hash chain for the whole deployment. Every append locks the
 * chain-head row (`audit_chain_head`, `FOR UPDATE`) and numbers its records from it, so id order is
 * chain order with no gaps, whichever host wrote them; `audit/` computes each link ({@link ChainLink})
 * and this store only keeps it. Records are stored coded (`audit_entries`, `audit_strings`, migration
 * 035) and read through the view `audit_log`. Verification reads one REPEATABLE READ snapshot, so a prune running
 * meanwhile cannot fake a break; pruning runs on one host at a time (a try-lock).
 */
import type pg from 'pg';
import type { AuditAppend, AuditColumn, AuditFilter, AuditRecord, AuditStore, ChainAnchor, ChainLink, ChainReader, StoredAuditRecord } from '../port/index.js';
import {
  codedAuditFields,
  codedValue,
  codedValues,
  codeOf,
  InternedStrings,
  ipv4Number,
  isLowercaseUuid,
  type CodedAuditField,
  type Codes,
  USED_CODES,
} from '../audit-codes.js';
import type { Executor } from './executor.js';
import { toStorageError } from './errors.js';
import { advisoryKey, connect } from './transaction.js';

/** Every column of a record with its PostgreSQL type (for `unnest` of one array per column). */
const recordColumns = {
  timestamp: 'bigint',
  event_type: 'text',
  category: 'text',
  auth_type: 'text',
  user_id: 'text',
  username: 'text',
  api_key_id: 'text',
  api_key_name: 'text',
  api_key_prefix: 'text',
  model_id: 'text',
  model_name: 'text',
  model_type: 'text',
  method: 'text',
  route: 'text',
  endpoint: 'text',
  action: 'text',
  target: 'text',
  status: 'text',
  http_status: 'integer',
  reason: 'text',
  request_id: 'text',
  latency_ms: 'double precision',
  client_ip: 'text',
  details: 'text',
} as const satisfies Record<keyof AuditRecord, string>;

const fields = Object.keys(recordColumns) as (keyof AuditRecord)[];
const codedFields = new Set<string>(codedAuditFields);
/**
 * The columns of `audit_entries` (migration 035) with the array type each travels in: coded fields as
 * `audit_strings` ids, the request id as a uuid when it is one (else text), `prev_hash` not stored
 * (the view `audit_log` derives it), `hash` sent in hex and stored as 32 bytes.
 */
const entryColumns: readonly (readonly [string, string])[] = [
  ['id', 'bigint'],
  ['timestamp', 'bigint'],
  ['latency_ms', 'double precision'],
  ...codedAuditFields.map((field) => [field, 'integer'] as const),
  ['client_ipv4', 'integer'],
  ['http_status', 'integer'],
  ['request_uuid', 'uuid'],
  ['hash', 'text'],
  ['request_text', 'text'],
  ['details', 'text'],
];
const entryNames = entryColumns.map(([name]) => name);
const INSERT =
  `INSERT INTO audit_entries (${entryNames.join(', ')}) ` +
  `SELECT ${entryNames.map((name) => (name === 'hash' ? "decode(r.hash, 'hex')" : `r.${name}`)).join(', ')} ` +
  `FROM unnest(${entryColumns.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ')}) AS r (${entryNames.join(', ')})`;
const IMPORT = `${INSERT} ON CONFLICT (id) DO NOTHING`;
/** Every column of a stored record, decoded by the view `audit_log`, digests in hex. */
const SELECT_RECORD = `SELECT id, ${fields.join(', ')}, coalesce(encode(prev_hash, 'hex'), '') AS prev_hash, encode(hash, 'hex') AS hash FROM audit_log`;

const substringColumns = { user: 'username', apiKeyName: 'api_key_name', modelId: 'model_id', modelName: 'model_name', clientIp: 'client_ip' } as const;
const exactColumns = { modelType: 'model_type', category: 'category', authType: 'auth_type', status: 'status', eventType: 'event_type', action: 'action' } as const;
const distinctColumns: ReadonlySet<AuditColumn> = new Set(['username', 'api_key_name', 'model_id', 'model_name', 'model_type', 'category', 'auth_type', 'status', 'client_ip', 'event_type', 'action']);

/** The dotted quad of `client_ipv4` (a signed 32-bit integer): client IPs are stored there, not coded, when they are IPv4. */
const IPV4_TEXT = [24, 16, 8, 0].map((shift) => `((e.client_ipv4 >> ${shift}) & 255)::text`).join(" || '.' || ");
const escapeLike = (value: string): string => `%${value.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

/** The values of one record for {@link entryColumns}. */
function entryRow(codes: Codes, id: number, record: AuditRecord, hash: string): unknown[] {
  const uuid = isLowercaseUuid(record.request_id);
  return entryNames.map((name) => {
    if (name === 'id') return id;
    if (name === 'hash') return hash;
    if (name === 'request_uuid') return uuid ? record.request_id : null;
    if (name === 'request_text') return uuid ? null : record.request_id;
    if (name === 'client_ipv4') return ipv4Number(record.client_ip);
    if (codedFields.has(name)) return codeOf(codes, codedValue(record, name as CodedAuditField));
    return record[name as keyof AuditRecord];
  });
}

/** Inserts rows through `statement`, one array per column. */
async function insertEntries(sql: Executor, statement: string, rows: readonly unknown[][]): Promise<number> {
  if (rows.length === 0) return 0;
  return sql.run(statement, entryNames.map((_, index) => rows.map((row) => row[index])));
}

/**
 * The ids of `values` in `audit_strings`, adding those it lacks. Runs under the chain head's lock
 * (appends and imports take it first), so two writers never add the same value. Answers the codes
 * and the ids learned from the database (for the cache, once committed).
 */
async function intern(sql: Executor, values: readonly string[], cache: InternedStrings | null): Promise<{ codes: Codes; learned: Map<string, number> }> {
  const codes = new Map<string, number>();
  const learned = new Map<string, number>();
  const missing: string[] = [];
  for (const value of values) {
    const cached = cache?.get(value);
    if (cached === undefined) missing.push(value);
    else codes.set(value, cached);
  }
  if (missing.length === 0) return { codes, learned };
  const found = await sql.rows<{ id: number; value: string }>(
    'SELECT s.id, s.value FROM unnest($1::text[]) AS v (value) JOIN audit_strings s ON s.value = v.value',
    [missing],
  );
  for (const { id, value } of found) learned.set(value, id);
  const absent = missing.filter((value) => !learned.has(value));
  if (absent.length > 0) {
    const added = await sql.rows<{ id: number; value: string }>('INSERT INTO audit_strings (value) SELECT unnest($1::text[]) RETURNING id, value', [absent]);
    for (const { id, value } of added) learned.set(value, id);
  }
  for (const [value, id] of learned) codes.set(value, id);
  return { codes, learned };
}

/**
 * Imports records as `svc-migrate-storage` reads them (the view's columns: text decoded, digests as
 * bytes), coding them for this database; a record whose id is there already is left untouched.
 * Answers how many were inserted. The caller holds the chain head's lock inside its transaction.
 */
export async function importAuditRows(sql: Executor, rows: readonly Record<string, unknown>[]): Promise<number> {
  const records = rows.map((row) => row as unknown as AuditRecord & { id: number | string; hash: Buffer | string });
  const { codes } = await intern(sql, codedValues(records), null);
  const entries = records.map((record) =>
    entryRow(codes, Number(record.id), record, Buffer.isBuffer(record.hash) ? record.hash.toString('hex') : String(record.hash)),
  );
  return insertEntries(sql, IMPORT, entries);
}

/**
 * The WHERE clause of a filter on `audit_entries e`, or null when it cannot match anything (text
 * holding NUL is never stored). Exact lists become arrays of codes, looked up first, so the planner
 * sees them as it saw the text lists; substring filters match in the dictionary.
 */
async function whereClause(sql: Executor, filter: AuditFilter): Promise<{ sql: string; values: unknown[] } | null> {
  const values: unknown[] = [filter.timeFrom, filter.timeTo];
  const conditions = ['e.timestamp >= $1', 'e.timestamp <= $2'];
  for (const [name, column] of Object.entries(substringColumns)) {
    const value = filter[name as keyof typeof substringColumns];
    if (value === undefined || value === '') continue;
    if (value.includes('\u0000')) return null;
    values.push(escapeLike(value));
    const coded = `e.${column} IN (SELECT id FROM audit_strings WHERE value ILIKE $${values.length} ESCAPE '\\')`;
    conditions.push(column === 'client_ip' ? `(${coded} OR ${IPV4_TEXT} ILIKE $${values.length} ESCAPE '\\')` : coded);
  }
  for (const [name, column] of Object.entries(exactColumns)) {
    const listed = filter[name as keyof typeof exactColumns];
    if (listed === undefined || listed.length === 0) continue;
    const codes = await codesOf(sql, listed);
    if (codes.length === 0) return null;
    values.push(codes);
    conditions.push(`e.${column} = ANY ($${values.length}::integer[])`);
  }
  if (filter.excludeAction !== undefined && filter.excludeAction.length > 0) {
    const codes = await codesOf(sql, filter.excludeAction);
    if (codes.length > 0) {
      values.push(codes);
      conditions.push(`e.action <> ALL ($${values.length}::integer[])`);
    }
  }
  return { sql: conditions.join(' AND '), values };
}

/** The codes of the stored strings among `values` (those never stored, or holding NUL, have none). */
async function codesOf(sql: Executor, values: readonly string[]): Promise<number[]> {
  const storable = values.filter((value) => !value.includes('\u0000'));
  if (storable.length === 0) return [];
  return (await sql.rows<{ id: number }>('SELECT id FROM audit_strings WHERE value = ANY ($1::text[])', [storable])).map((row) => row.id);
}

/** {@link AuditStore} on PostgreSQL. */
export class PostgresAuditStore implements AuditStore {
  readonly #sql: Executor;
  readonly #pool: pg.Pool;
  /** The ids of strings this store has interned (committed ones only). */
  readonly #interned = new InternedStrings();

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
      this.#interned.sync(head.strings_pruned ?? 0);
      const interned = await intern(sql, codedValues(batch.map(({ record }) => record)), this.#interned);
      const rows: unknown[][] = [];
      let previous = head.last_id === 0 ? genesisHash : head.last_hash;
      let id = head.last_id;
      for (const { record, encoding } of batch) {
        id += 1;
        const hash = link(previous, encoding);
        rows.push(entryRow(interned.codes, id, record, hash));
        previous = hash;
      }
      await insertEntries(sql, INSERT, rows);
      await sql.run('UPDATE audit_chain_head SET last_id = $1, last_hash = $2 WHERE id = 1', [id, previous]);
      return interned.learned;
    });
    this.#interned.commit(learned);
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
    const rows = await this.#sql.rows<{ value: string }>(
      `SELECT DISTINCT value COLLATE "C" AS value FROM audit_strings WHERE id IN (SELECT e.${column} FROM audit_entries e WHERE e.timestamp >= $1 AND e.timestamp <= $2)` +
        (column === 'client_ip' ? ` UNION SELECT ${IPV4_TEXT} COLLATE "C" FROM audit_entries e WHERE e.timestamp >= $1 AND e.timestamp <= $2 AND e.client_ipv4 IS NOT NULL` : '') +
        ' ORDER BY 1 LIMIT $3',
      [timeFrom, timeTo, limit],
    );
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

  /** Under the chain head's lock, so no append is interning meanwhile. */
  async pruneUnusedStrings(): Promise<number> {
    return this.#sql.atomically(async (sql) => {
      await sql.run('SELECT 1 FROM audit_chain_head WHERE id = 1 FOR UPDATE');
      // Only after a pruning (the anchor counts it, so every writer's cache learns of it).
      const deleted = await sql.run(`DELETE FROM audit_strings WHERE id NOT IN (${USED_CODES}) AND EXISTS (SELECT 1 FROM audit_chain_anchor WHERE id = 1)`);
      if (deleted > 0) await sql.run('UPDATE audit_chain_anchor SET strings_pruned = strings_pruned + 1 WHERE id = 1');
      return deleted;
    });
  }

  async count(): Promise<number> {
    return (await this.#sql.first<{ count: number }>('SELECT count(*) AS count FROM audit_entries'))?.count ?? 0;
  }
}
