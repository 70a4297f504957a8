/**
 * Audit search filters on PostgreSQL's coded records (migration 045): each filter on a field becomes
 * a condition on the id of the tuple holding it (`shape`, `caller`, `api_key`), matched in
 * `audit_tuples` (client IPs: in `client_ipv4` or `audit_strings`), so the time index, which carries
 * `caller` and `shape`, checks the user filter and every filter on a shape field without reading rows.
 */
import type { AuditColumn, AuditFilter } from '../port/index.js';
import { tupleGroups, tupleMember } from './audit-coding.js';
import type { Executor } from './executor.js';

/** Substring filters on the caller's and the key's tuples: matched by a subquery, per tuple. */
const tupleSubstringFields = { user: 'username', apiKeyName: 'api_key_name' } as const;
/** Filters on the shape's members: resolved to the list of matching shape ids before the query. */
const shapeSubstringFields = { modelId: 'model_id', modelName: 'model_name' } as const;
const exactFields = { modelType: 'model_type', category: 'category', authType: 'auth_type', status: 'status', eventType: 'event_type', action: 'action' } as const;

/** The dotted quad of `client_ipv4` (a signed 32-bit integer): client IPs are stored there, not coded, when they are IPv4. */
export const IPV4_TEXT = [24, 16, 8, 0].map((shift) => `((e.client_ipv4 >> ${shift}) & 255)::text`).join(" || '.' || ");
const escapeLike = (value: string): string => `%${value.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

/** SQL: the record's tuple holding `field` is one whose `field` satisfies `condition` (on `value`). */
function fieldMatches(field: string, condition: (value: string) => string): string {
  const { column, position } = tupleMember(field as Parameters<typeof tupleMember>[0]);
  const member = `t.members[${position}]`;
  return `e.${column} IN (SELECT t.id FROM audit_tuples t WHERE cardinality(t.members) = ${tupleGroups[column].length} AND ${condition(member)})`;
}

/**
 * The WHERE clause of a filter on `audit_entries e`, or null when it cannot match anything (text
 * holding NUL is never stored, a value no shape holds). Substring filters match case-insensitively,
 * as before. Every filter on a shape field (model, type, category, status, event, action and the
 * actions left out) is turned into the list of matching shape ids first, so the planner sees the
 * list and the statistics of `shape` (as it saw the status codes before); a list of shapes that are
 * all not a success also says `shape < 0`, so the planner may read the partial index of those.
 */
export async function whereClause(sql: Executor, filter: AuditFilter): Promise<{ sql: string; values: unknown[] } | null> {
  const values: unknown[] = [filter.timeFrom, filter.timeTo];
  const conditions = ['e.timestamp >= $1', 'e.timestamp <= $2'];
  const parameter = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  for (const [name, field] of Object.entries(tupleSubstringFields)) {
    const value = filter[name as keyof typeof tupleSubstringFields];
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
  const shapes = await shapeCondition(sql, filter);
  if (shapes === null) return null;
  if (shapes !== undefined) {
    conditions.push(`e.shape ${shapes.excluded ? '<> ALL' : '= ANY'} (${parameter(shapes.ids)}::integer[])`);
    if (!shapes.excluded && shapes.ids.every((id) => id < 0)) conditions.push('e.shape < 0');
  }
  return { sql: conditions.join(' AND '), values };
}

/**
 * The shape ids the filters on shape fields allow (`excluded: false`), or, with only actions left
 * out, the ids they exclude (`excluded: true`); undefined without such filters, null when nothing
 * can match.
 */
async function shapeCondition(sql: Executor, filter: AuditFilter): Promise<{ ids: number[]; excluded: boolean } | null | undefined> {
  const values: unknown[] = [];
  const conditions: string[] = [];
  const member = (field: string): string => `t.members[${tupleMember(field as Parameters<typeof tupleMember>[0]).position}]`;
  for (const [name, field] of Object.entries(shapeSubstringFields)) {
    const value = filter[name as keyof typeof shapeSubstringFields];
    if (value === undefined || value === '') continue;
    if (value.includes('\u0000')) return null;
    values.push(escapeLike(value));
    conditions.push(`${member(field)} ILIKE $${values.length} ESCAPE '\\'`);
  }
  for (const [name, field] of Object.entries(exactFields)) {
    const given = filter[name as keyof typeof exactFields];
    if (given === undefined || given.length === 0) continue;
    const listed = given.filter((value) => !value.includes('\u0000'));
    if (listed.length === 0) return null;
    values.push(listed);
    conditions.push(`${member(field)} = ANY ($${values.length}::text[])`);
  }
  const excluded = filter.excludeAction?.filter((value) => !value.includes('\u0000')) ?? [];
  if (conditions.length === 0 && excluded.length === 0) return undefined;
  const onlyExcluding = conditions.length === 0;
  if (excluded.length > 0) {
    values.push(excluded);
    conditions.push(`${onlyExcluding ? '' : 'NOT '}${member('action')} = ANY ($${values.length}::text[])`);
  }
  const rows = await sql.rows<{ id: number }>(
    `SELECT t.id FROM audit_tuples t WHERE cardinality(t.members) = ${tupleGroups.shape.length} AND ${conditions.join(' AND ')}`,
    values,
  );
  const ids = rows.map((row) => row.id);
  if (onlyExcluding) return ids.length === 0 ? undefined : { ids, excluded: true };
  return ids.length === 0 ? null : { ids, excluded: false };
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
