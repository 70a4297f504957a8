/**
 * The audit aggregate of the storage port. The adapter only stores the hash chain: `audit/`
 * computes each link and hands it in ({@link ChainLink}).
 */

/** One audit record, every field that the hash covers. */
export interface AuditRecord {
  timestamp: number;
  event_type: string;
  category: string;
  auth_type: string;
  user_id: string | null;
  username: string | null;
  api_key_id: string | null;
  api_key_name: string | null;
  api_key_prefix: string | null;
  model_id: string | null;
  model_name: string | null;
  model_type: string | null;
  method: string | null;
  route: string | null;
  endpoint: string | null;
  action: string;
  target: string | null;
  status: string;
  http_status: number | null;
  reason: string | null;
  request_id: string | null;
  latency_ms: number | null;
  client_ip: string | null;
  /** Event-specific facts as JSON text (e.g. when a ban ends), or null. */
  details: string | null;
}

/** A record as stored: its position and its links in the chain. */
export interface StoredAuditRecord extends AuditRecord {
  id: number;
  prev_hash: string;
  hash: string;
}

/** Given the previous record's hash and a record's canonical encoding, the record's hash. */
export type ChainLink = (previousHash: string, encoding: string) => string;

/** One record to append, with the canonical encoding `audit/` made of it. */
export interface AuditAppend {
  record: AuditRecord;
  encoding: string;
}

/** A search: a time range plus substring filters (user … client IP) and exact lists (model type …). */
export interface AuditFilter {
  timeFrom: number;
  timeTo: number;
  user?: string;
  apiKeyName?: string;
  modelId?: string;
  modelName?: string;
  clientIp?: string;
  modelType?: string[];
  category?: string[];
  authType?: string[];
  status?: string[];
  eventType?: string[];
  action?: string[];
  /** Actions left out (the web UI's page-load calls, for one). */
  excludeAction?: string[];
}

/** The columns whose distinct values the audit center offers as filters. */
export type AuditColumn =
  | 'username'
  | 'api_key_name'
  | 'model_id'
  | 'model_name'
  | 'model_type'
  | 'category'
  | 'auth_type'
  | 'status'
  | 'client_ip'
  | 'event_type'
  | 'action';

/** Where the chain starts after pruning: the last pruned record's id and hash. */
export interface ChainAnchor {
  lastPrunedId: number;
  lastPrunedHash: string;
}

/** One consistent snapshot of the anchor and the chain, read page by page. */
export interface ChainReader {
  anchor: ChainAnchor | null;
  pages(pageSize: number): AsyncIterable<StoredAuditRecord[]>;
  close(): Promise<void>;
}

/** The audit trail. There is no way to edit or delete a single record. */
export interface AuditStore {
  /** One atomic batch: lock the chain head, link each record with `link`, insert, move the head. */
  append(batch: readonly AuditAppend[], link: ChainLink, genesisHash: string): Promise<void>;
  /** Newest first. */
  search(filter: AuditFilter, offset: number, limit: number): Promise<{ hits: StoredAuditRecord[]; total: number }>;
  /** Keyset paging for exports, newest first, after `before`. */
  exportPage(filter: AuditFilter, before: { timestamp: number; id: number } | null, limit: number): Promise<StoredAuditRecord[]>;
  distinctValues(column: AuditColumn, timeFrom: number, timeTo: number, limit: number): Promise<string[]>;
  openChainReader(): Promise<ChainReader>;
  /** Deletes up to `batch` of the oldest records older than `before` and moves the anchor; 0 when another host is pruning. */
  pruneOlderThan(before: number, batch: number, now: number): Promise<number>;
  /**
   * Deletes the stored strings of the coded form (migration 035; on PostgreSQL also the tuples of
   * them, migration 045) that no record uses any more, after a pruning: without it, strings of pruned
   * records (attacker-chosen paths and usernames among them) would outlive the retention period.
   * Answers how many dictionary rows were deleted.
   */
  pruneUnusedStrings(): Promise<number>;
  count(): Promise<number>;
}
