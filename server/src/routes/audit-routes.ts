/**
 * The audit center (`admin`): search, filter options, streamed export and chain verification. No
 * route edits or deletes a record (R39).
 */
import { Readable } from 'node:stream';
import { csvHeader, csvLine, presentAuditRecord } from '../audit/audit-format.js';
import { parseTimeRange } from '../audit/time-range.js';
import { verifyAuditChain } from '../audit/verify-chain.js';
import type { Handlers } from '../contract/handlers.js';
import { ApiError } from '../errors.js';
import { filterOptionColumns, type AuditFilter } from '../storage/audit-repository.js';
import type { AuditRepository } from '../storage/audit-repository.js';
import type { Services } from '../services/services.js';

const EXPORT_PAGE = 1000;
const FILTER_OPTION_LIMIT = 500;

interface FilterQuery {
  time_from?: string;
  time_to?: string;
  user?: string;
  api_key_name?: string;
  model_id?: string;
  model_name?: string;
  client_ip?: string;
  model_type?: string;
  category?: string;
  auth_type?: string;
  status?: string;
  event_type?: string;
  action?: string;
  exclude_action?: string;
}

const list = (value: string | undefined): string[] | undefined => {
  if (value === undefined) return undefined;
  const values = value.split(',').map((item) => item.trim()).filter((item) => item !== '');
  return values.length === 0 ? undefined : values;
};

/** The repository filter of a search or export query. */
export function auditFilter(query: FilterQuery): AuditFilter {
  const filter: AuditFilter = parseTimeRange(query);
  const assign = <K extends keyof AuditFilter>(key: K, value: AuditFilter[K] | undefined) => {
    if (value !== undefined) filter[key] = value;
  };
  assign('user', query.user);
  assign('apiKeyName', query.api_key_name);
  assign('modelId', query.model_id);
  assign('modelName', query.model_name);
  assign('clientIp', query.client_ip);
  assign('modelType', list(query.model_type));
  assign('category', list(query.category));
  assign('authType', list(query.auth_type));
  assign('status', list(query.status));
  assign('eventType', list(query.event_type));
  assign('action', list(query.action));
  assign('excludeAction', list(query.exclude_action));
  return filter;
}

/** The matching records as a stream of CSV or JSON Lines, read one page at a time (never all at once). */
export function exportStream(repository: AuditRepository, filter: AuditFilter, format: 'csv' | 'jsonl'): Readable {
  async function* lines(): AsyncGenerator<string> {
    if (format === 'csv') yield csvHeader;
    let cursor: { timestamp: number; id: number } | null = null;
    for (;;) {
      const page = repository.exportPage(filter, cursor, EXPORT_PAGE);
      let chunk = '';
      for (const row of page) {
        const record = presentAuditRecord(row);
        chunk += format === 'csv' ? csvLine(record) : `${JSON.stringify(record)}\n`;
      }
      if (chunk !== '') yield chunk;
      if (page.length < EXPORT_PAGE) return;
      const last = page[page.length - 1] as { timestamp: number; id: number };
      cursor = { timestamp: last.timestamp, id: last.id };
    }
  }
  return Readable.from(lines(), { objectMode: false });
}

export function auditHandlers(services: Services): Pick<Handlers, 'searchAudit' | 'getAuditFilterOptions' | 'exportAudit' | 'verifyAudit'> {
  const repository = services.storage.audit;
  /** This process's queued records are written before the log is read. */
  const flush = async () => {
    await services.audit?.flush();
  };
  return {
    searchAudit: async ({ query }) => {
      const filter = auditFilter(query);
      await flush();
      const { hits, total } = repository.search(filter, query.page_from ?? 0, query.size ?? 50);
      return { status: 200, body: { hits: hits.map(presentAuditRecord), total } };
    },
    getAuditFilterOptions: async ({ query }) => {
      const { timeFrom, timeTo } = parseTimeRange(query);
      await flush();
      const body = Object.fromEntries(
        Object.entries(filterOptionColumns).map(([name, column]) => [name, repository.distinctValues(column, timeFrom, timeTo, FILTER_OPTION_LIMIT)]),
      ) as Record<keyof typeof filterOptionColumns, string[]>;
      return { status: 200, body };
    },
    exportAudit: async ({ query }) => {
      if (query.format !== 'csv' && query.format !== 'jsonl') throw new ApiError('invalid_request', 'format must be csv or jsonl', { param: 'format' });
      const filter = auditFilter(query);
      await flush();
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const extension = query.format;
      return {
        status: 200,
        raw: exportStream(repository, filter, query.format),
        headers: {
          'content-type': query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
          'content-disposition': `attachment; filename="svc-audit-${stamp}.${extension}"`,
        },
      };
    },
    verifyAudit: async () => {
      await flush();
      return { status: 200, body: await verifyAuditChain(repository) };
    },
  };
}
