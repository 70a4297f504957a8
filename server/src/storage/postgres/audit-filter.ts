/**
 * Audit search filters on PostgreSQL's coded records (migration 045): each filter on a field becomes
 * a condition on the id of the tuple holding it (`shape`, `caller`, `api_key`), matched in
 * `audit_tuples` (client IPs: in `client_ipv4` or `audit_strings`), so the time index — which carries `caller` and
 * `shape` — checks the user filter and every filter on a shape field without reading rows.
 */
import type { AuditColumn, AuditFilter } from '../port/index.js';
import { tupleGroups, tupleMember, type TupleColumn } from './audit-coding.js';

const substringFields = { user: 'username', apiKeyName: 'api_key_name', modelId: 'model_id', modelName: 'model_name' } as const;
const exactFields = { modelType: 'model_type', category: 'category', authType: 'auth_type', status: 'status', eventType: 'event_type', action: 'action' } as const;

/** The dotted quad of `client_ipv4` (a signed 32-bit integer): client IPs are stored there, not coded, when they are IPv4. */
export const IPV4_TEXT = [24, 16, 8, 0].map((shift) => `((e.client_ipv4 >> ${shift}) & 255)::text`).join(" || '.' || ");
const escapeLike = (value: string): string => `%${value.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

/** SQL: the record's tuple holding `field` is one whose `field` satisfies `condition` (on `value`). */
function fieldMatches(field: string, condition: (value: string) => string, negated = false): string {
  const { column, position } = tupleMember(field as Parameters<typeof tupleMember>[0]);
  const member = `t.members[${position}]`;
  return `e.${column} ${negated ? 'NOT IN' : 'IN'} (SELECT t.id FROM audit_tuples t WHERE cardinality(t.members) = ${tupleGroups[column].length} AND ${condition(member)})`;
}

/**
 * The WHERE clause of a filter on `audit_entries e`, or null when it cannot match anything (text
 * holding NUL is never stored). Substring filters match case-insensitively in the dictionary, as
 * before; a status filter without `success` also says `shape < 0`, so the planner may read the
 * partial index of the records that are not a success.
 */
export function whereClause(filter: AuditFilter): { sql: string; values: unknown[] } | null {
  const values: unknown[] = [filter.timeFrom, filter.timeTo];
  const conditions = ['e.timestamp >= $1', 'e.timestamp <= $2'];
  const parameter = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  for (const [name, field] of Object.entries(substringFields)) {
    const value = filter[name as keyof typeof substringFields];
    if (value === undefined || value === '') continue;
    if (value.includes('\u0000')) return null;
    const pattern = parameter(escapeLike(value));
    conditions.push(fieldMatches(field, (member) => `${member} ILIKE ${pattern} ESCAPE '\\'`));
  }
  if (filter.clientIp !== undefined && filter.clientIp !== '') {
    if (filter.clientIp.includes('\u0000')) return null;
    const pattern = parameter(escapeLike(filter.clientIp));
    conditions.push(`(e.client_ip IN (SELECT s.id FROM audit_strings s WHERE s.value ILIKE ${pattern} ESCAPE '\\') OR ${IPV4_TEXT} ILIKE ${pattern} ESCAPE '\\')`);
  }
  for (const [name, field] of Object.entries(exactFields)) {
    const listed = filter[name as keyof typeof exactFields]?.filter((value) => !value.includes('\u0000'));
    if (listed === undefined || filter[name as keyof typeof exactFields]?.length === 0) continue;
    if (listed.length === 0) return null;
    const list = parameter(listed);
    conditions.push(fieldMatches(field, (member) => `${member} = ANY (${list}::text[])`));
    if (field === 'status' && !listed.includes('success')) conditions.push('e.shape < 0');
  }
  const excluded = filter.excludeAction?.filter((value) => !value.includes('\u0000')) ?? [];
  if (excluded.length > 0) {
    const list = parameter(excluded);
    conditions.push(fieldMatches('action', (member) => `${member} = ANY (${list}::text[])`, true));
  }
  return { sql: conditions.join(' AND '), values };
}

/** SQL answering the distinct values of `column` among the records of a time range (`$1`, `$2`), at most `$3`. */
export function distinctValuesQuery(column: AuditColumn): string {
  const inRange = 'e.timestamp >= $1 AND e.timestamp <= $2';
  if (column === 'client_ip') {
    return (
      `SELECT DISTINCT value COLLATE "C" AS value FROM audit_strings WHERE id IN (SELECT e.client_ip FROM audit_entries e WHERE ${inRange})` +
      ` UNION SELECT ${IPV4_TEXT} COLLATE "C" FROM audit_entries e WHERE ${inRange} AND e.client_ipv4 IS NOT NULL ORDER BY 1 LIMIT $3`
    );
  }
  const { column: tuple, position } = tupleMember(column);
  return (
    `SELECT DISTINCT t.members[${position}] COLLATE "C" AS value FROM audit_tuples t ` +
    `WHERE t.id IN (SELECT e.${tuple} FROM audit_entries e WHERE ${inRange}) AND t.members[${position}] IS NOT NULL ORDER BY 1 LIMIT $3`
  );
}
