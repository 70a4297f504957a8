/**
 * How stored records are shown: as JSON objects (search, JSON Lines export) and as CSV rows.
 */
import type { components } from '../generated/openapi.js';
import type { StoredAuditEntry } from './audit-entry.js';

/** A record as the API shows it. */
export type AuditRecord = components['schemas']['AuditRecord'];

/** The stored row as the API shows it. */
export function presentAuditRecord(row: StoredAuditEntry): AuditRecord {
  let details: Record<string, unknown> | null = null;
  if (row.details !== null) {
    try {
      details = JSON.parse(row.details) as Record<string, unknown>;
    } catch {
      details = { unreadable: row.details };
    }
  }
  const timestamp = new Date(row.timestamp).toISOString();
  return {
    id: row.id,
    // The reference server's audit log names the time `@timestamp` (UTC, milliseconds, `Z`).
    '@timestamp': timestamp,
    timestamp,
    event_type: row.event_type,
    category: row.category,
    auth_type: row.auth_type,
    user_id: row.user_id,
    user: row.username,
    api_key_id: row.api_key_id,
    api_key_name: row.api_key_name,
    api_key_prefix: row.api_key_prefix,
    model_id: row.model_id,
    model_name: row.model_name,
    model_type: row.model_type,
    method: row.method,
    route: row.route,
    endpoint: row.endpoint,
    action: row.action,
    target: row.target,
    status: row.status,
    http_status: row.http_status,
    reason: row.reason,
    request_id: row.request_id,
    latency_ms: row.latency_ms,
    client_ip: row.client_ip,
    details,
    prev_hash: row.prev_hash,
    hash: row.hash,
  };
}

/** The CSV columns, in order (the names of {@link AuditRecord}'s fields). */
export const csvColumns = [
  'id', 'timestamp', 'event_type', 'category', 'auth_type', 'user_id', 'user', 'api_key_id', 'api_key_name', 'api_key_prefix',
  'model_id', 'model_name', 'model_type', 'method', 'route', 'endpoint', 'action', 'target', 'status', 'http_status', 'reason',
  'request_id', 'latency_ms', 'client_ip', 'details', 'prev_hash', 'hash',
] as const satisfies readonly (keyof AuditRecord)[];

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/g;

/**
 * One CSV field (RFC 4180): a value a spreadsheet would run as a formula (starting with `=`, `+`,
 * `-`, `@`, tab or carriage return) gets a leading `'` (OWASP's CSV-injection advice); control
 * characters are spelled out so no field spans lines; quotes are doubled and the field quoted when
 * it holds a comma, quote or `'`-prefix.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value !== 'number') text = `'${text}`;
  text = text.replace(CONTROL, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return /[",']/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV line (with its CRLF) for a record. */
export function csvLine(record: AuditRecord): string {
  return `${csvColumns.map((column) => csvField(record[column])).join(',')}\r\n`;
}

/** The CSV header line. */
export const csvHeader = `${csvColumns.join(',')}\r\n`;
