/**
 * The audit center (`admin`): search, filter options, export and chain verification.
 */
import type { AuditFilterOptions, AuditFilters, AuditRecord, AuditSearchQuery, AuditSearchResult, AuditVerification } from '../types.js';
import type { RequestOptions } from '../request-options.js';
import type { Api } from './api.js';
import { SvcError } from '../errors.js';
import { readLines } from './lines.js';
import { unwrap, unwrapStream } from './unwrap.js';

/** `client.audit`. */
export class AuditResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /**
   * `GET /v1/audit/search`: one page of matching records, newest first, and the total.
   *
   * @example
   * const { hits, total } = await client.audit.search({ time_from: 'now-1d', status: 'login_failed,ip_banned' });
   */
  search(query: AuditSearchQuery = {}, options?: RequestOptions): Promise<AuditSearchResult> {
    return unwrap(this.#api.GET('/v1/audit/search', { ...this.#api.callInit(options), params: { query } }));
  }

  /** `GET /v1/audit/filter-options`: distinct values of each filterable field in the time range. */
  filterOptions(range: { time_from?: string; time_to?: string } = {}, options?: RequestOptions): Promise<AuditFilterOptions> {
    return unwrap(this.#api.GET('/v1/audit/filter-options', { ...this.#api.callInit(options), params: { query: range } }));
  }

  /** `GET /v1/audit/verify`: checks the hash chain and names the first broken record. */
  verify(options?: RequestOptions): Promise<AuditVerification> {
    return unwrap(this.#api.GET('/v1/audit/verify', this.#api.callInit(options)));
  }

  /**
   * `GET /v1/audit/export`: the response body as a byte stream, as the server streams it (CSV with
   * a header row, or JSON Lines). Pipe it to a file; nothing is buffered whole.
   *
   * @example
   * const body = await client.audit.export('csv', { time_from: 'now-7d' });
   * await pipeline(Readable.fromWeb(body), createWriteStream('audit.csv'));
   */
  async export(format: 'csv' | 'jsonl', filters: AuditFilters = {}, options?: RequestOptions): Promise<ReadableStream<Uint8Array>> {
    return (await unwrapStream(this.#api.GET('/v1/audit/export', { ...this.#api.callInit(options), params: { query: { ...filters, format } }, parseAs: 'stream' }))).body;
  }

  /**
   * The export as parsed records, one at a time (JSON Lines read as it streams).
   *
   * @example
   * for await (const record of client.audit.exportRecords({ time_from: 'now-1d', category: 'security' })) console.log(record.event_type);
   */
  async *exportRecords(filters: AuditFilters = {}, options?: RequestOptions): AsyncGenerator<AuditRecord> {
    for await (const line of readLines(await this.export('jsonl', filters, options))) {
      if (line.trim() !== '') yield parseRecord(line);
    }
  }
}

/** One JSON Lines record; a line that is not JSON is an {@link SvcError}, as every SDK error is. */
function parseRecord(line: string): AuditRecord {
  try {
    return JSON.parse(line) as AuditRecord;
  } catch (error) {
    throw new SvcError(`The audit export holds a line that is not JSON (was it asked for as JSON Lines?): ${line.slice(0, 80)}`, { cause: error });
  }
}
