/**
 * The audit center (`admin`): search, filter options, streamed export and chain verification. No
 * route edits or deletes a record (R39).
 */
import { csvHeader, csvLine, presentAuditRecord } from '../audit/audit-format.js';
import type { AuditFilter } from '../audit/audit-service.js';
import { parseTimeRange } from '../audit/time-range.js';
import type { Handlers } from '../contract/handlers.js';
import { ApiError } from '../errors.js';
import type { Services } from '../services/services.js';

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
export function auditFilter(query: FilterQuery, now: number): AuditFilter {
  const filter: AuditFilter = parseTimeRange(query, now);
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

export function auditHandlers(services: Services): Pick<Handlers, 'searchAudit' | 'getAuditFilterOptions' | 'exportAudit' | 'verifyAudit'> {
  const { audit, clock } = services;
  return {
    searchAudit: async ({ query }) => {
      const filter = auditFilter(query, clock.now());
      const { hits, total } = await audit.search(filter, query.page_from ?? 0, query.size ?? 50);
      return { status: 200, body: { hits: hits.map(presentAuditRecord), total } };
    },
    getAuditFilterOptions: async ({ query }) => {
      const { timeFrom, timeTo } = parseTimeRange(query, clock.now());
      return { status: 200, body: await audit.filterOptions(timeFrom, timeTo, FILTER_OPTION_LIMIT) };
    },
    exportAudit: async ({ query }) => {
      if (query.format !== 'csv' && query.format !== 'jsonl') throw new ApiError('invalid_request', 'format must be csv or jsonl', { param: 'format' });
      const filter = auditFilter(query, clock.now());
      await audit.flush();
      const stamp = new Date(clock.now()).toISOString().replace(/[:.]/g, '-');
      const extension = query.format;
      const format = query.format === 'csv' ? (row: Parameters<typeof presentAuditRecord>[0]) => csvLine(presentAuditRecord(row)) : (row: Parameters<typeof presentAuditRecord>[0]) => `${JSON.stringify(presentAuditRecord(row))}\n`;
      return {
        status: 200,
        raw: audit.exportStream(filter, format, query.format === 'csv' ? csvHeader : ''),
        headers: {
          'content-type': query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
          'content-disposition': `attachment; filename="svc-audit-${stamp}.${extension}"`,
        },
      };
    },
    verifyAudit: async () => ({ status: 200, body: await audit.verify() }),
  };
}
