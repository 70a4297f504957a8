/**
 * The coded form of audit records (migration 035), shared by both adapters: which fields are stored
 * as ids of `audit_strings`, how a request id becomes 16 bytes, and the bounded cache of interned
 * strings each audit writer keeps. The SQL that reads and writes the coded tables stays in each
 * adapter's `audit-store.ts`. Since migration 045 PostgreSQL codes most of these fields by groups
 * (`postgres/audit-coding.ts`) and interns only non-IPv4 client IPs one at a time.
 */
import type { AuditRecord } from './port/audit.js';

/** The fields stored as `audit_strings` ids (every other text field is stored as is). */
export const codedAuditFields = [
  'event_type', 'category', 'auth_type', 'user_id', 'username', 'api_key_id', 'api_key_name', 'api_key_prefix', 'model_id',
  'model_name', 'model_type', 'method', 'route', 'endpoint', 'action', 'target', 'status', 'reason', 'client_ip',
] as const satisfies readonly (keyof AuditRecord)[];

/** A coded field. */
export type CodedAuditField = (typeof codedAuditFields)[number];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A request id as 16 raw bytes when it is a lowercase UUID (it reads back identical), else null. */
export function requestUuidBytes(requestId: string | null): Buffer | null {
  return requestId !== null && UUID.test(requestId) ? Buffer.from(requestId.replaceAll('-', ''), 'hex') : null;
}

/** Whether `requestId` is a lowercase UUID (stored as 16 bytes). */
export function isLowercaseUuid(requestId: string | null): requestId is string {
  return requestId !== null && UUID.test(requestId);
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * A client IP in dotted-quad form without leading zeros (it reads back identical) as a signed 32-bit
 * integer, stored in `client_ipv4` instead of the dictionary (an IP per record would make the
 * dictionary as large as the records); null for anything else (IPv6, other spellings).
 */
export function ipv4Number(ip: string | null): number | null {
  const match = ip === null ? null : IPV4.exec(ip);
  if (match === null) return null;
  return ((Number(match[1]) << 24) | (Number(match[2]) << 16) | (Number(match[3]) << 8) | Number(match[4])) | 0;
}

/** The value stored in the coded column `field` of a record: null when the field is null or stored elsewhere. */
export function codedValue(record: AuditRecord, field: CodedAuditField): string | null {
  const value = record[field];
  if (field === 'client_ip' && ipv4Number(value) !== null) return null;
  return value;
}

/** The distinct values of the coded fields of `records`. */
export function codedValues(records: readonly AuditRecord[]): string[] {
  const values = new Set<string>();
  for (const record of records) {
    for (const field of codedAuditFields) {
      const value = codedValue(record, field);
      if (value !== null) values.add(value);
    }
  }
  return [...values];
}

/**
 * The ids of interned strings one writer has seen, bounded (cleared when full: a miss only costs a
 * lookup). Ids learned inside a transaction are kept only once it commits ({@link commit}), so a
 * rolled-back transaction cannot leave an id that another string may receive later. Retention deletes
 * unused strings and counts it (`audit_chain_anchor.strings_pruned`); each writer reads that count in
 * its transaction and forgets its ids when it moved ({@link sync}).
 */
export class InternedStrings {
  readonly #known = new Map<string, number>();
  readonly #capacity: number;
  /** The `strings_pruned` count the cached ids were learned under. */
  #generation = 0;

  constructor(capacity = 50_000) {
    this.#capacity = capacity;
  }

  /** The cached id of `value`, if any. */
  get(value: string): number | undefined {
    return this.#known.get(value);
  }

  /** Keeps ids learned by a committed transaction. */
  commit(learned: ReadonlyMap<string, number>): void {
    if (this.#known.size + learned.size > this.#capacity) this.#known.clear();
    for (const [value, id] of learned) this.#known.set(value, id);
  }

  /**
   * Forgets every id when strings were pruned since they were learned (`strings_pruned`, read in the
   * writer's transaction): a pruned id may be gone or given to another string.
   */
  sync(generation: number): void {
    if (generation === this.#generation) return;
    this.#known.clear();
    this.#generation = generation;
  }
}

/** SQL: every code the records use, one column per coded field (for pruning unused strings). */
export const USED_CODES = codedAuditFields.map((field) => `SELECT ${field} FROM audit_entries WHERE ${field} IS NOT NULL`).join(' UNION ');

/** The codes of a batch: `value → id` for every coded value of its records. */
export type Codes = ReadonlyMap<string, number>;

/** The code of one field of a record (null stays null). */
export function codeOf(codes: Codes, value: string | null): number | null {
  if (value === null) return null;
  const id = codes.get(value);
  if (id === undefined) throw new Error('audit string was not interned');
  return id;
}
