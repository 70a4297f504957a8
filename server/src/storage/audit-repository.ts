/**
 * The audit log: appending chained records, searching, listing distinct values, paging through a
 * range for export, pruning and reading the chain back for verification. The only module that
 * writes SQL for `audit_log` and `audit_chain_anchor`. Audit writes do not mark the change tracker:
 * no cache depends on them.
 */
import { auditFields, canonicalEncoding, GENESIS_HASH, hashEncoded, type AuditEntry, type StoredAuditEntry } from '../audit/audit-entry.js';
import type { Statement } from 'better-sqlite3';
import type { Database } from './database.js';

/** Filters of a search or an export (all optional; combined with AND). */
export interface AuditFilter {
  /** Inclusive bounds in epoch milliseconds. */
  timeFrom: number;
  timeTo: number;
  /** Case-insensitive substring filters. */
  user?: string;
  apiKeyName?: string;
  modelId?: string;
  modelName?: string;
  clientIp?: string;
  /** Exact filters: any of the listed values. */
  modelType?: string[];
  category?: string[];
  authType?: string[];
  status?: string[];
  eventType?: string[];
  action?: string[];
  /** Actions left out (the web UI's page-load calls, for one). */
  excludeAction?: string[];
}

/** The anchor left by retention pruning. */
export interface ChainAnchor {
  lastPrunedId: number;
  lastPrunedHash: string;
}

const substringColumns = { user: 'username', apiKeyName: 'api_key_name', modelId: 'model_id', modelName: 'model_name', clientIp: 'client_ip' } as const;
const exactColumns = { modelType: 'model_type', category: 'category', authType: 'auth_type', status: 'status', eventType: 'event_type', action: 'action' } as const;

/** Columns whose distinct values `filter-options` lists, by the name of their filter parameter. */
export const filterOptionColumns = {
  user: 'username',
  api_key_name: 'api_key_name',
  model_id: 'model_id',
  model_name: 'model_name',
  model_type: 'model_type',
  category: 'category',
  auth_type: 'auth_type',
  status: 'status',
  client_ip: 'client_ip',
  event_type: 'event_type',
  action: 'action',
} as const;

const escapeLike = (value: string): string => `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function whereClause(filter: AuditFilter): { sql: string; parameters: unknown[] } {
  const conditions = ['timestamp >= ?', 'timestamp <= ?'];
  const parameters: unknown[] = [filter.timeFrom, filter.timeTo];
  for (const [name, column] of Object.entries(substringColumns)) {
    const value = filter[name as keyof typeof substringColumns];
    if (value === undefined || value === '') continue;
    conditions.push(`${column} LIKE ? ESCAPE '\\'`);
    parameters.push(escapeLike(value));
  }
  for (const [name, column] of Object.entries(exactColumns)) {
    const values = filter[name as keyof typeof exactColumns];
    if (values === undefined || values.length === 0) continue;
    conditions.push(`${column} IN (${values.map(() => '?').join(', ')})`);
    parameters.push(...values);
  }
  if (filter.excludeAction !== undefined && filter.excludeAction.length > 0) {
    conditions.push(`action NOT IN (${filter.excludeAction.map(() => '?').join(', ')})`);
    parameters.push(...filter.excludeAction);
  }
  return { sql: conditions.join(' AND '), parameters };
}

const insertColumns = [...auditFields, 'prev_hash', 'hash'];

/** Reads and appends audit records. */
export class AuditRepository {
  readonly #db: Database;
  #insert: Statement | undefined;

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * Appends `entries` in one immediate transaction, chaining each to the newest stored record (read
   * inside the transaction, so several processes appending to one file keep one chain).
   */
  append(entries: readonly AuditEntry[]): void {
    this.appendCanonical(entries.map(canonicalEncoding));
  }

  /** {@link append} for records already in their canonical encoding (what the writer thread receives). */
  appendCanonical(encodings: readonly string[]): void {
    if (encodings.length === 0) return;
    this.#insert ??= this.#db.prepare(`INSERT INTO audit_log (${insertColumns.join(', ')}) VALUES (${insertColumns.map(() => '?').join(', ')})`);
    const insert = this.#insert;
    this.#db
      .transaction(() => {
        let previous = this.#lastHash();
        for (const encoding of encodings) {
          const hash = hashEncoded(previous, encoding);
          insert.run(...(JSON.parse(encoding) as unknown[]), previous, hash);
          previous = hash;
        }
      })
      .immediate();
  }

  #lastHash(): string {
    const last = this.#db.prepare<[], { hash: string }>('SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1').get();
    return last?.hash ?? this.anchor()?.lastPrunedHash ?? GENESIS_HASH;
  }

  /** The records matching `filter`, newest first, and how many match in all. */
  search(filter: AuditFilter, offset: number, limit: number): { hits: StoredAuditEntry[]; total: number } {
    const where = whereClause(filter);
    const total = this.#db.prepare(`SELECT count(*) FROM audit_log WHERE ${where.sql}`).pluck().get(...where.parameters) as number;
    const hits = this.#db
      .prepare(`SELECT * FROM audit_log WHERE ${where.sql} ORDER BY timestamp DESC, id DESC LIMIT ? OFFSET ?`)
      .all(...where.parameters, limit, offset) as StoredAuditEntry[];
    return { hits, total };
  }

  /** One page of an export: records matching `filter` older than `before` (newest first). */
  exportPage(filter: AuditFilter, before: { timestamp: number; id: number } | null, limit: number): StoredAuditEntry[] {
    const where = whereClause(filter);
    const cursor = before === null ? '' : ' AND (timestamp < ? OR (timestamp = ? AND id < ?))';
    const cursorParameters = before === null ? [] : [before.timestamp, before.timestamp, before.id];
    return this.#db
      .prepare(`SELECT * FROM audit_log WHERE ${where.sql}${cursor} ORDER BY timestamp DESC, id DESC LIMIT ?`)
      .all(...where.parameters, ...cursorParameters, limit) as StoredAuditEntry[];
  }

  /** Distinct non-null values of `column` within the time range, at most `limit`, sorted. */
  distinctValues(column: (typeof filterOptionColumns)[keyof typeof filterOptionColumns], timeFrom: number, timeTo: number, limit: number): string[] {
    return this.#db
      .prepare(`SELECT DISTINCT ${column} FROM audit_log WHERE timestamp >= ? AND timestamp <= ? AND ${column} IS NOT NULL ORDER BY 1 LIMIT ?`)
      .pluck()
      .all(timeFrom, timeTo, limit) as string[];
  }

  /** Records in chain order with ids above `afterId`, at most `limit`. */
  chainPage(afterId: number, limit: number): StoredAuditEntry[] {
    return this.#db.prepare('SELECT * FROM audit_log WHERE id > ? ORDER BY id LIMIT ?').all(afterId, limit) as StoredAuditEntry[];
  }

  /** The pruning anchor, or null when nothing was ever pruned. */
  anchor(): ChainAnchor | null {
    const row = this.#db
      .prepare<[], { last_pruned_id: number; last_pruned_hash: string }>('SELECT last_pruned_id, last_pruned_hash FROM audit_chain_anchor WHERE id = 1')
      .get();
    return row === undefined ? null : { lastPrunedId: row.last_pruned_id, lastPrunedHash: row.last_pruned_hash };
  }

  /**
   * Deletes up to `batch` of the oldest records older than `before`, moving the anchor to the last
   * one deleted in the same transaction. Answers how many were deleted.
   */
  pruneOlderThan(before: number, batch: number, now: number): number {
    return this.#db
      .transaction(() => {
        const last = this.#db
          .prepare<[number, number], { id: number; hash: string }>(
            'SELECT id, hash FROM (SELECT id, hash FROM audit_log WHERE timestamp < ? ORDER BY id LIMIT ?) ORDER BY id DESC LIMIT 1',
          )
          .get(before, batch);
        if (last === undefined) return 0;
        // Only a prefix of the chain may go: stop at the first record that is still young.
        const firstYoung = this.#db.prepare<[number], { id: number }>('SELECT id FROM audit_log WHERE timestamp >= ? ORDER BY id LIMIT 1').get(before);
        const upTo = firstYoung === undefined ? last.id : Math.min(last.id, firstYoung.id - 1);
        if (upTo < (this.#db.prepare('SELECT min(id) FROM audit_log').pluck().get() as number)) return 0;
        const anchor = this.#db.prepare<[number], { id: number; hash: string }>('SELECT id, hash FROM audit_log WHERE id <= ? ORDER BY id DESC LIMIT 1').get(upTo);
        if (anchor === undefined) return 0;
        const deleted = this.#db.prepare('DELETE FROM audit_log WHERE id <= ?').run(anchor.id).changes;
        this.#db
          .prepare(
            'INSERT INTO audit_chain_anchor (id, last_pruned_id, last_pruned_hash, pruned_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET last_pruned_id = excluded.last_pruned_id, last_pruned_hash = excluded.last_pruned_hash, pruned_at = excluded.pruned_at',
          )
          .run(anchor.id, anchor.hash, now);
        return deleted;
      })
      .immediate();
  }

  /** How many records are stored. */
  count(): number {
    return this.#db.prepare('SELECT count(*) FROM audit_log').pluck().get() as number;
  }
}
