/**
 * The audit log on SQLite: appending chained records, searching, listing distinct values, paging
 * through a range for export, pruning and reading the chain back for verification. The only module
 * that writes SQL for `audit_entries`, `audit_strings` and `audit_chain_anchor`; records are read
 * through the view `audit_log` (migration 035: coded strings, `prev_hash` derived). The hash of each link is computed by the
 * caller's `link` function (in `audit/`); this store only stores it.
 */
import BetterSqlite3 from 'better-sqlite3';
import type {
  AuditAppend,
  AuditColumn,
  AuditFilter,
  AuditRecord,
  AuditStore,
  ChainAnchor,
  ChainLink,
  ChainReader,
  StoredAuditRecord,
} from '../port/audit.js';
import {
  codedValues,
  codeOf,
  InternedStrings,
  ipv4Number,
  requestUuidBytes,
  type Codes,
  USED_CODES,
} from '../audit-codes.js';
import type { Database } from './database.js';
import { attempt, toStorageError } from './errors.js';
import { statement, type Connections } from './statements.js';

/** The columns of a record, in the order the view `audit_log` declares them. */
const recordColumns = [
  'timestamp', 'event_type', 'category', 'auth_type', 'user_id', 'username', 'api_key_id', 'api_key_name', 'api_key_prefix',
  'model_id', 'model_name', 'model_type', 'method', 'route', 'endpoint', 'action', 'target', 'status', 'http_status', 'reason',
  'request_id', 'latency_ms', 'client_ip', 'details',
] as const satisfies readonly (keyof AuditRecord)[];
// Coded fields as `audit_strings` ids, the request id as 16 bytes when it is a UUID, `prev_hash` not
// stored (the view derives it), `hash` as 32 bytes (migrations 022 and 035).
const entryColumns = ['id', ...recordColumns, 'client_ipv4', 'hash'];
const INSERT = `INSERT INTO audit_entries (${entryColumns.join(', ')}) VALUES (${entryColumns.map((column) => (column === 'hash' ? 'unhex(?)' : '?')).join(', ')})`;
const IMPORT = `${INSERT} ON CONFLICT (id) DO NOTHING`;
/** Every column of a stored record, decoded by the view `audit_log`, digests back in hex. */
const SELECT_RECORD = `SELECT id, ${recordColumns.join(', ')}, lower(hex(prev_hash)) AS prev_hash, lower(hex(hash)) AS hash FROM audit_log`;

const substringColumns = { user: 'username', apiKeyName: 'api_key_name', modelId: 'model_id', modelName: 'model_name', clientIp: 'client_ip' } as const;
const exactColumns = { modelType: 'model_type', category: 'category', authType: 'auth_type', status: 'status', eventType: 'event_type', action: 'action' } as const;
const filterableColumns = new Set<AuditColumn>([
  'username', 'api_key_name', 'model_id', 'model_name', 'model_type', 'category', 'auth_type', 'status', 'client_ip', 'event_type', 'action',
]);

/** The dotted quad of `client_ipv4` (a signed 32-bit integer): client IPs are stored there, not coded, when they are IPv4. */
const IPV4_TEXT = [24, 16, 8, 0].map((shift) => `((e.client_ipv4 >> ${shift}) & 255)`).join(" || '.' || ");
const escapeLike = (value: string): string => `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The conditions of a filter on `audit_entries e`. Exact lists become lists of codes, looked up first,
 * so the planner sees `status IN (?, ?)` as before and seeks the status index; substring filters
 * match in the dictionary and check the record's code (`+`: not an index constraint).
 */
function whereClause(db: Database, filter: AuditFilter): { sql: string; parameters: unknown[] } {
  const conditions = ['e.timestamp >= ?', 'e.timestamp <= ?'];
  const parameters: unknown[] = [filter.timeFrom, filter.timeTo];
  for (const [name, column] of Object.entries(substringColumns)) {
    const value = filter[name as keyof typeof substringColumns];
    if (value === undefined || value === '') continue;
    // SQLite's LIKE reads its pattern up to the first NUL ('a\0' would match like 'a'); text holding NUL is never stored.
    if (value.includes('\u0000')) {
      conditions.push('0');
      continue;
    }
    const pattern = escapeLike(value);
    if (column === 'client_ip') {
      conditions.push(`(+e.client_ip IN (SELECT id FROM audit_strings WHERE value LIKE ? ESCAPE '\\') OR ${IPV4_TEXT} LIKE ? ESCAPE '\\')`);
      parameters.push(pattern, pattern);
      continue;
    }
    conditions.push(`+e.${column} IN (SELECT id FROM audit_strings WHERE value LIKE ? ESCAPE '\\')`);
    parameters.push(pattern);
  }
  for (const [name, column] of Object.entries(exactColumns)) {
    const values = filter[name as keyof typeof exactColumns];
    if (values === undefined || values.length === 0) continue;
    const codes = codesOf(db, values);
    conditions.push(codes.length === 0 ? '0' : `e.${column} IN (${codes.map(() => '?').join(', ')})`);
    parameters.push(...codes);
  }
  if (filter.excludeAction !== undefined && filter.excludeAction.length > 0) {
    const codes = codesOf(db, filter.excludeAction);
    if (codes.length > 0) {
      conditions.push(`e.action NOT IN (${codes.map(() => '?').join(', ')})`);
      parameters.push(...codes);
    }
  }
  return { sql: conditions.join(' AND '), parameters };
}

/** The codes of the stored strings among `values` (those never stored have none). */
function codesOf(db: Database, values: readonly string[]): number[] {
  return db.prepare(`SELECT id FROM audit_strings WHERE value IN (${values.map(() => '?').join(', ')})`).pluck().all(...values) as number[];
}

/**
 * The ids of `values` in `audit_strings`, adding those it lacks, on the writer inside its transaction.
 * Answers the codes and the ids learned from the database (for the cache, once committed).
 */
function intern(db: Database, values: readonly string[], cache: InternedStrings | null): { codes: Codes; learned: Map<string, number> } {
  const codes = new Map<string, number>();
  const learned = new Map<string, number>();
  const find = statement<[string], number>(db, 'SELECT id FROM audit_strings WHERE value = ?').pluck();
  const add = statement<[string], number>(db, 'INSERT INTO audit_strings (value) VALUES (?) RETURNING id').pluck();
  for (const value of values) {
    const cached = cache?.get(value);
    if (cached !== undefined) {
      codes.set(value, cached);
      continue;
    }
    const id = find.get(value) ?? (add.get(value) as number);
    codes.set(value, id);
    learned.set(value, id);
  }
  return { codes, learned };
}

/**
 * The row of `audit_entries` for a record with its id and hash, in {@link entryColumns} order.
 * Spelled out column by column: the writer runs this for every record (a map over the column list
 * with a coded-or-not test per column cost it about a microsecond more; the store's tests read every
 * field back).
 */
function entryRow(codes: Codes, id: number, r: AuditRecord, hash: string): unknown[] {
  const ipv4 = ipv4Number(r.client_ip);
  return [
    id, r.timestamp, codeOf(codes, r.event_type), codeOf(codes, r.category), codeOf(codes, r.auth_type), codeOf(codes, r.user_id),
    codeOf(codes, r.username), codeOf(codes, r.api_key_id), codeOf(codes, r.api_key_name), codeOf(codes, r.api_key_prefix),
    codeOf(codes, r.model_id), codeOf(codes, r.model_name), codeOf(codes, r.model_type), codeOf(codes, r.method), codeOf(codes, r.route),
    codeOf(codes, r.endpoint), codeOf(codes, r.action), codeOf(codes, r.target), codeOf(codes, r.status), r.http_status,
    codeOf(codes, r.reason), requestUuidBytes(r.request_id) ?? r.request_id, r.latency_ms, ipv4 === null ? codeOf(codes, r.client_ip) : null,
    r.details, ipv4, hash,
  ];
}

/**
 * Imports records as `svc-migrate-storage` reads them (the view's columns: text decoded, digests as
 * bytes), coding them for this database; a record whose id is there already is left untouched.
 * Answers how many were inserted. Runs on the writer inside the import's transaction.
 */
export function importAuditRows(db: Database, rows: readonly Record<string, unknown>[]): number {
  const records = rows.map((row) => row as unknown as AuditRecord & { id: number; hash: Buffer | string });
  const { codes } = intern(db, codedValues(records), null);
  const insert = statement(db, IMPORT);
  let inserted = 0;
  for (const record of records) {
    const hash = Buffer.isBuffer(record.hash) ? record.hash.toString('hex') : String(record.hash);
    inserted += insert.run(...entryRow(codes, Number(record.id), record, hash)).changes;
  }
  return inserted;
}

function readAnchor(db: Database): (ChainAnchor & { stringsPruned: number }) | null {
  const row = statement<[], { last_pruned_id: number; last_pruned_hash: string; strings_pruned: number }>(
    db,
    'SELECT last_pruned_id, last_pruned_hash, strings_pruned FROM audit_chain_anchor WHERE id = 1',
  ).get();
  return row === undefined ? null : { lastPrunedId: row.last_pruned_id, lastPrunedHash: row.last_pruned_hash, stringsPruned: row.strings_pruned };
}

/** Reads and appends audit records. There is no way to edit or delete a single record. */
export class SqliteAuditStore implements AuditStore {
  readonly #c: Connections;
  /** The database file, for the chain reader's own connection; null for an in-memory database. */
  readonly #path: string | null;
  /** The ids of strings this store has interned (committed ones only). */
  readonly #interned = new InternedStrings();

  constructor(connections: Connections, path: string | null) {
    this.#c = connections;
    this.#path = path;
  }

  append(batch: readonly AuditAppend[], link: ChainLink, genesisHash: string): Promise<void> {
    if (batch.length === 0) return Promise.resolve();
    const db = this.#c.write;
    return this.#c.gate.write(() => {
      // Inside someone else's transaction (an offline tool's), ids are cached only if it commits: not at all.
      const cache = db.inTransaction ? null : this.#interned;
      const learned = db.transaction(() => {
        const anchor = readAnchor(db);
        cache?.sync(anchor?.stringsPruned ?? 0);
        const interned = intern(db, codedValues(batch.map(({ record }) => record)), cache);
        const insert = statement(db, INSERT);
        const last = statement<[], { id: number; hash: string }>(db, 'SELECT id, lower(hex(hash)) AS hash FROM audit_entries ORDER BY id DESC LIMIT 1').get();
        let previous = last?.hash ?? anchor?.lastPrunedHash ?? genesisHash;
        // id − 1 is always the previous link (the view derives prev_hash from it), also after a full prune.
        let id = Math.max(last?.id ?? 0, anchor?.lastPrunedId ?? 0);
        for (const { record, encoding } of batch) {
          const hash = link(previous, encoding);
          id += 1;
          insert.run(...entryRow(interned.codes, id, record, hash));
          previous = hash;
        }
        return interned.learned;
      }).immediate();
      cache?.commit(learned);
    });
  }

  search(filter: AuditFilter, offset: number, limit: number): Promise<{ hits: StoredAuditRecord[]; total: number }> {
    return attempt(() => {
      const where = whereClause(this.#c.read, filter);
      const total = this.#c.read.prepare(`SELECT count(*) FROM audit_entries e WHERE ${where.sql}`).pluck().get(...where.parameters) as number;
      const hits = this.#c.read
        .prepare(`${SELECT_RECORD} WHERE id IN (SELECT e.id FROM audit_entries e WHERE ${where.sql} ORDER BY e.timestamp DESC, e.id DESC LIMIT ? OFFSET ?) ORDER BY timestamp DESC, id DESC`)
        .all(...where.parameters, limit, offset) as StoredAuditRecord[];
      return { hits, total };
    });
  }

  exportPage(filter: AuditFilter, before: { timestamp: number; id: number } | null, limit: number): Promise<StoredAuditRecord[]> {
    return attempt(() => {
      const where = whereClause(this.#c.read, filter);
      const cursor = before === null ? '' : ' AND (e.timestamp < ? OR (e.timestamp = ? AND e.id < ?))';
      const cursorParameters = before === null ? [] : [before.timestamp, before.timestamp, before.id];
      return this.#c.read
        .prepare(`${SELECT_RECORD} WHERE id IN (SELECT e.id FROM audit_entries e WHERE ${where.sql}${cursor} ORDER BY e.timestamp DESC, e.id DESC LIMIT ?) ORDER BY timestamp DESC, id DESC`)
        .all(...where.parameters, ...cursorParameters, limit) as StoredAuditRecord[];
    });
  }

  distinctValues(column: AuditColumn, timeFrom: number, timeTo: number, limit: number): Promise<string[]> {
    if (!filterableColumns.has(column)) return Promise.reject(new Error(`not a filterable audit column: ${column}`));
    return attempt(
      () =>
        column === 'client_ip'
          ? (statement(
              this.#c.read,
              'SELECT value FROM audit_strings WHERE id IN (SELECT e.client_ip FROM audit_entries e WHERE e.timestamp >= ? AND e.timestamp <= ?) ' +
                `UNION SELECT ${IPV4_TEXT} FROM audit_entries e WHERE e.timestamp >= ? AND e.timestamp <= ? AND e.client_ipv4 IS NOT NULL ORDER BY 1 LIMIT ?`,
            )
              .pluck()
              .all(timeFrom, timeTo, timeFrom, timeTo, limit) as string[])
          : (statement(this.#c.read, `SELECT value FROM audit_strings WHERE id IN (SELECT e.${column} FROM audit_entries e WHERE e.timestamp >= ? AND e.timestamp <= ?) ORDER BY value LIMIT ?`)
              .pluck()
              .all(timeFrom, timeTo, limit) as string[]),
    );
  }

  /**
   * A snapshot of the anchor and the chain: its own read-only connection inside one read
   * transaction, so a prune committed meanwhile cannot fake a break (an in-memory database, which
   * no one else writes, is read directly).
   */
  openChainReader(): Promise<ChainReader> {
    return attempt(() => {
      const own = this.#path === null ? null : new BetterSqlite3(this.#path, { readonly: true, fileMustExist: true, timeout: 5000 });
      const db = own ?? this.#c.read;
      try {
        if (own !== null) own.exec('BEGIN');
        const anchor = readAnchor(db);
        return chainReader(db, own, anchor);
      } catch (error) {
        own?.close();
        throw error;
      }
    });
  }

  pruneOlderThan(before: number, batch: number, now: number): Promise<number> {
    const db = this.#c.write;
    return this.#c.gate.write(() =>
      db
        .transaction(() => {
          const last = statement<[number, number], { id: number }>(
            db,
            'SELECT id FROM (SELECT id FROM audit_entries WHERE timestamp < ? ORDER BY id LIMIT ?) ORDER BY id DESC LIMIT 1',
          ).get(before, batch);
          if (last === undefined) return 0;
          // Only a prefix of the chain may go: stop at the first record that is still young.
          const firstYoung = statement<[number], { id: number }>(db, 'SELECT id FROM audit_entries WHERE timestamp >= ? ORDER BY id LIMIT 1').get(before);
          const upTo = firstYoung === undefined ? last.id : Math.min(last.id, firstYoung.id - 1);
          if (upTo < (statement(db, 'SELECT min(id) FROM audit_entries').pluck().get() as number)) return 0;
          const anchor = statement<[number], { id: number; hash: string }>(db, 'SELECT id, lower(hex(hash)) AS hash FROM audit_entries WHERE id <= ? ORDER BY id DESC LIMIT 1').get(upTo);
          if (anchor === undefined) return 0;
          const deleted = statement(db, 'DELETE FROM audit_entries WHERE id <= ?').run(anchor.id).changes;
          statement(
            db,
            'INSERT INTO audit_chain_anchor (id, last_pruned_id, last_pruned_hash, pruned_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET last_pruned_id = excluded.last_pruned_id, last_pruned_hash = excluded.last_pruned_hash, pruned_at = excluded.pruned_at',
          ).run(anchor.id, anchor.hash, now);
          return deleted;
        })
        .immediate(),
    );
  }

  pruneUnusedStrings(): Promise<number> {
    const db = this.#c.write;
    return this.#c.gate.write(() =>
      db
        .transaction(() => {
          // Only after a pruning (the anchor counts it, so every writer's cache learns of it).
          if (readAnchor(db) === null) return 0;
          const deleted = statement(db, `DELETE FROM audit_strings WHERE id NOT IN (${USED_CODES})`).run().changes;
          if (deleted > 0) statement(db, 'UPDATE audit_chain_anchor SET strings_pruned = strings_pruned + 1 WHERE id = 1').run();
          return deleted;
        })
        .immediate(),
    );
  }

  count(): Promise<number> {
    return attempt(() => statement(this.#c.read, 'SELECT count(*) FROM audit_entries').pluck().get() as number);
  }
}

function chainReader(db: Database, own: Database | null, anchor: ChainAnchor | null): ChainReader {
  const page = db.prepare<[number, number], StoredAuditRecord>(`${SELECT_RECORD} WHERE id > ? ORDER BY id LIMIT ?`);
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    if (own !== null && own.open) own.close();
  };
  return {
    anchor,
    async *pages(pageSize: number): AsyncIterable<StoredAuditRecord[]> {
      let afterId = 0;
      for (;;) {
        let rows: StoredAuditRecord[];
        try {
          rows = page.all(afterId, pageSize);
        } catch (error) {
          throw toStorageError(error);
        }
        if (rows.length > 0) yield rows;
        if (rows.length < pageSize) return;
        afterId = (rows[rows.length - 1] as StoredAuditRecord).id;
      }
    },
    close: () => {
      close();
      return Promise.resolve();
    },
  };
}
