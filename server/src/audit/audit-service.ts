/**
 * The audit center's reads: search, filter options, streamed export and chain verification, over the
 * storage's audit store. Owns the rule that this process's queued records are written before the log
 * is read, so a client sees its own requests.
 */
import { Readable } from 'node:stream';
import type { AuditColumn, AuditFilter, AuditStore, StoredAuditRecord } from '../storage/port/audit.js';
import type { AuditTrail } from './audit-trail.js';
import { verifyAuditChain, type ChainVerification } from './verify-chain.js';

export type { AuditFilter } from '../storage/port/audit.js';

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
} as const satisfies Record<string, AuditColumn>;

/** The filter options: distinct values per filter parameter. */
export type FilterOptions = Record<keyof typeof filterOptionColumns, string[]>;

const EXPORT_PAGE = 1000;

/** Searches, exports and verifies the audit log. */
export class AuditService {
  readonly #store: AuditStore;
  /** This process's trail, or null when built without one (benchmarks only). */
  readonly trail: AuditTrail | null;

  constructor(store: AuditStore, trail: AuditTrail | null) {
    this.#store = store;
    this.trail = trail;
  }

  /** Writes this process's queued records. */
  async flush(): Promise<void> {
    await this.trail?.flush();
  }

  /** The records matching `filter`, newest first, and how many match in all. */
  async search(filter: AuditFilter, offset: number, limit: number): Promise<{ hits: StoredAuditRecord[]; total: number }> {
    await this.flush();
    return this.#store.search(filter, offset, limit);
  }

  /** Up to `limit` distinct values of each filterable column within the time range. */
  async filterOptions(timeFrom: number, timeTo: number, limit: number): Promise<FilterOptions> {
    await this.flush();
    const entries = await Promise.all(
      Object.entries(filterOptionColumns).map(async ([name, column]) => [name, await this.#store.distinctValues(column, timeFrom, timeTo, limit)] as const),
    );
    return Object.fromEntries(entries) as FilterOptions;
  }

  /**
   * The matching records, newest first, one page at a time (never all at once), each turned into
   * text by `format`. Flush first ({@link flush}) for the export to include this process's records.
   */
  exportStream(filter: AuditFilter, format: (record: StoredAuditRecord) => string, header = ''): Readable {
    const store = this.#store;
    async function* lines(): AsyncGenerator<string> {
      if (header !== '') yield header;
      let cursor: { timestamp: number; id: number } | null = null;
      for (;;) {
        const page = await store.exportPage(filter, cursor, EXPORT_PAGE);
        let chunk = '';
        for (const record of page) chunk += format(record);
        if (chunk !== '') yield chunk;
        if (page.length < EXPORT_PAGE) return;
        const last = page[page.length - 1] as StoredAuditRecord;
        cursor = { timestamp: last.timestamp, id: last.id };
      }
    }
    return Readable.from(lines(), { objectMode: false });
  }

  /** Verifies the hash chain. */
  async verify(): Promise<ChainVerification> {
    await this.flush();
    return verifyAuditChain(this.#store);
  }
}
