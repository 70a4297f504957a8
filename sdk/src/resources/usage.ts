/**
 * Usage: metered model calls over time (one's own; everyone's with `usage:read_all`), as rows or CSV.
 * Limits are set on keys (`client.keys.setLimits`), users (`client.users.setLimits`) and as the
 * default for new keys (`client.security.setDefaultKeyLimits`).
 */
import type { UsageQuery, UsageReport } from '../types.js';
import type { RequestOptions } from '../request-options.js';
import type { Api } from './api.js';
import { unwrap } from './unwrap.js';

/** `client.usage`. */
export class UsageResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /**
   * `GET /v1/usage`: rows per hour or UTC day, grouped by key, user or model.
   *
   * @example
   * const { data } = await client.usage.report({ start: 'now-7d', group_by: 'key' });
   * for (const row of data) console.log(row.period_start, row.group, row.total_tokens);
   */
  report(query: UsageQuery = {}, options?: RequestOptions): Promise<UsageReport> {
    return unwrap(this.#api.GET('/v1/usage', { ...this.#api.callInit(options), params: { query: { ...query, format: 'json' } } })) as Promise<UsageReport>;
  }

  /** `GET /v1/usage?format=csv`: the same rows as CSV text with a header row. */
  exportCsv(query: UsageQuery = {}, options?: RequestOptions): Promise<string> {
    return unwrap(this.#api.GET('/v1/usage', { ...this.#api.callInit(options), params: { query: { ...query, format: 'csv' } }, parseAs: 'text' }));
  }
}
