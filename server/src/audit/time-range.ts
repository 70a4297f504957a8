/**
 * The time expressions of audit queries: `now`, `now-<N><unit>` (m, h, d, w), epoch milliseconds
 * or an ISO 8601 time.
 */
import { ApiError } from '../errors.js';

const units: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const RELATIVE = /^now(?:-(\d{1,9})([smhdw]))?$/;

/** The epoch milliseconds `expression` names at `now`. @throws {ApiError} 400 naming `param`. */
export function parseAuditTime(expression: string, param: string, now: number): number {
  const text = expression.trim();
  const relative = RELATIVE.exec(text);
  if (relative !== null) {
    return relative[1] === undefined ? now : now - Number(relative[1]) * (units[relative[2] as string] as number);
  }
  if (/^\d{1,15}$/.test(text)) return Number(text);
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const parsed = Date.parse(text);
    if (!Number.isNaN(parsed)) return parsed;
  }
  throw new ApiError('invalid_request', `${param} must be now, now-<N>m|h|d|w, epoch milliseconds or an ISO 8601 time`, { param });
}

/** The `[from, to]` range of a query (defaults: the last hour). @throws {ApiError} 400 when from is after to. */
export function parseTimeRange(query: { time_from?: string; time_to?: string }, now: number): { timeFrom: number; timeTo: number } {
  const timeFrom = parseAuditTime(query.time_from ?? 'now-1h', 'time_from', now);
  const timeTo = parseAuditTime(query.time_to ?? 'now', 'time_to', now);
  if (timeFrom > timeTo) throw new ApiError('invalid_request', 'time_from must not be after time_to', { param: 'time_from' });
  return { timeFrom, timeTo };
}
