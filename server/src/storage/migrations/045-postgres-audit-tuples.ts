/**
 * Migration 045: PostgreSQL audit records under 200 bytes each with their indexes (issue 20).
 *
 * Migration 035 gave every repeated field its own 4-byte code; on PostgreSQL a record still cost
 * 287 bytes (a 32-byte row header, 4-byte codes, three B-trees). Here the fields a record shares
 * with many others are coded **as groups**, each group interned once as a row of `audit_tuples`
 * (`members`: the group's values as text, in the record's field order), and a record holds one id per
 * group:
 *
 * - the call's shape (`shape`, 14 members): `event_type`, `category`, `auth_type`, `model_id`,
 *   `model_name`, `model_type`, `method`, `route`, `endpoint`, `action`, `target`, `status`,
 *   `reason`, `http_status` (in decimal). A shape whose status is anything but `success` gets a
 *   **negative** id, so the records worth a second index (refusals, failures) are told apart by
 *   `shape < 0` without reading the tuple;
 * - the caller (`caller`, 2 members): `user_id`, `username`;
 * - the key (`api_key`, 3 members): `api_key_id`, `api_key_name`, `api_key_prefix`.
 *
 * A group whose fields are all null is a null column. `audit_strings` keeps only what is coded one
 * field at a time: client IPs other than dotted-quad IPv4. `latency_ms` is an integer of microseconds
 * (`latency_us`) when that reads back as the same number (the server rounds latencies to the
 * microsecond), else a `double precision` in `latency_ms`. Client IPs (IPv4 as an integer, anything
 * else coded), request ids (a uuid or text), `details` and the 32-byte `hash` are kept as 035 kept
 * them. The view `audit_log` keeps its columns and types, so everything reading it (verification,
 * exports, `svc-migrate-storage`, ad-hoc SQL) is unchanged, and the hashed canonical form is
 * unchanged: every record written before verifies.
 *
 * Indexes: the primary key, `(timestamp, caller, shape)` for every record (time ranges, the user
 * filter and every filter on a shape field checked inside the index), and the same columns again
 * only for records whose shape is not a success (`WHERE shape < 0`: a status filter without
 * `success` reads only those), all packed full (`fillfactor = 100`: appends only add at the end).
 *
 * SQLite is not changed: its records already cost under 200 bytes (a SQLite row has no fixed header
 * and its integers take 1–3 bytes), so its dialect is empty.
 */
import type { Migration } from './index.js';

/** The shape's members: the `audit_entries` (035) columns, `http_status` last (a number, not a string id). */
export const shapeMembers = [
  'event_type', 'category', 'auth_type', 'model_id', 'model_name', 'model_type', 'method', 'route', 'endpoint', 'action',
  'target', 'status', 'reason', 'http_status',
] as const;
/** The caller's members. */
export const callerMembers = ['user_id', 'username'] as const;
/** The key's members. */
export const keyMembers = ['api_key_id', 'api_key_name', 'api_key_prefix'] as const;

const codeTuple = (members: readonly string[]): string => `ARRAY[${members.map((member) => `o.${member}`).join(', ')}]`;
/** SQL: the tuple of a group's 035 codes (`d.codes`) as text: each string decoded, the HTTP status in decimal. */
const decodedTuple = (members: readonly string[]): string =>
  `ARRAY[${members
    .map((name, index) => (name === 'http_status' ? `d.codes[${index + 1}]::text` : `(SELECT s.value FROM audit_strings s WHERE s.id = d.codes[${index + 1}])`))
    .join(', ')}]`;
const anyNotNull = (members: readonly string[]): string => members.map((member) => `${member} IS NOT NULL`).join(' OR ');
const latencyMicroseconds = 'round(o.latency_ms * 1000)';
const latencyExact = `abs(o.latency_ms) < 2000000 AND ${latencyMicroseconds}::double precision / 1000 = o.latency_ms AND o.latency_ms::text <> '-0'`;

/** A member of a tuple, by name. */
const member = (alias: string, members: readonly string[], name: string): string => `${alias}.members[${members.indexOf(name) + 1}] AS ${name}`;
const shapeMember = (name: (typeof shapeMembers)[number]): string => member('sh', shapeMembers, name);
const ipv4Text = [24, 16, 8, 0].map((shift) => `((e.client_ipv4 >> ${shift}) & 255)::text`).join(" || '.' || ");
const previousHash =
  'CASE WHEN e.id - 1 = coalesce((SELECT a.last_pruned_id FROM audit_chain_anchor a WHERE a.id = 1), 0) ' +
  "THEN coalesce((SELECT decode(a.last_pruned_hash, 'hex') FROM audit_chain_anchor a WHERE a.id = 1), decode(repeat('0', 64), 'hex')) " +
  'ELSE (SELECT p.hash FROM audit_entries p WHERE p.id = e.id - 1) END';

/** The view's columns: those of the table 035 replaced, in its order and with its types. */
const viewColumns = [
  'e.id', 'e.timestamp', shapeMember('event_type'), shapeMember('category'), shapeMember('auth_type'),
  member('c', callerMembers, 'user_id'), member('c', callerMembers, 'username'),
  member('k', keyMembers, 'api_key_id'), member('k', keyMembers, 'api_key_name'), member('k', keyMembers, 'api_key_prefix'),
  shapeMember('model_id'), shapeMember('model_name'), shapeMember('model_type'), shapeMember('method'), shapeMember('route'),
  shapeMember('endpoint'), shapeMember('action'), shapeMember('target'), shapeMember('status'),
  `sh.members[${shapeMembers.indexOf('http_status') + 1}]::integer AS http_status`, shapeMember('reason'),
  'coalesce(e.request_uuid::text, e.request_text) AS request_id',
  'coalesce(e.latency_us::double precision / 1000, e.latency_ms) AS latency_ms',
  `coalesce((SELECT s.value FROM audit_strings s WHERE s.id = e.client_ip), ${ipv4Text}) AS client_ip`,
  'e.details', `${previousHash} AS prev_hash`, 'e.hash',
].join(',\n  ');

/** Interns the distinct code tuples of one group (035's codes) as text tuples, remembering which codes became which id. */
function internGroup(members: readonly string[], id: string, where: string): string {
  return `
INSERT INTO audit_045_codes (codes, id)
  SELECT d.codes, ${id} FROM (SELECT DISTINCT ${codeTuple(members)} AS codes FROM audit_entries o ${where}) AS d ORDER BY d.codes;
INSERT INTO audit_tuples (id, members)
  SELECT d.id, ${decodedTuple(members)} FROM audit_045_codes d WHERE cardinality(d.codes) = ${members.length};`;
}

export const postgresAuditTuples: Migration = {
  version: 45,
  name: '045-postgres-audit-tuples',
  // SQLite records already cost under 200 bytes with their indexes (166 B measured): nothing to change.
  sql: '',
  postgres: `
CREATE SEQUENCE audit_tuples_id AS integer;
CREATE TABLE audit_tuples (
  id      integer PRIMARY KEY,
  members text[] NOT NULL
);
-- Interning runs under the chain head's lock (appends, imports), so tuples stay distinct without a
-- unique index (which could not hold long values); a hash index finds one by its members.
CREATE INDEX audit_tuples_by_members ON audit_tuples USING hash (members);
-- Which 035 codes became which tuple (dropped below).
CREATE TABLE audit_045_codes (codes integer[] NOT NULL, id integer NOT NULL);
${internGroup(
  shapeMembers,
  `CASE WHEN d.codes[${shapeMembers.indexOf('status') + 1}] = (SELECT s.id FROM audit_strings s WHERE s.value = 'success') THEN nextval('audit_tuples_id') ELSE -nextval('audit_tuples_id') END`,
  '',
)}
${internGroup(callerMembers, "nextval('audit_tuples_id')", `WHERE ${anyNotNull(callerMembers)}`)}
${internGroup(keyMembers, "nextval('audit_tuples_id')", `WHERE ${anyNotNull(keyMembers)}`)}
CREATE INDEX audit_045_codes_by_codes ON audit_045_codes USING hash (codes);
-- Columns in order of alignment (8-byte, 4-byte, then the rest), the ones most records fill first.
CREATE TABLE audit_entries_045 (
  id           bigint NOT NULL,
  timestamp    bigint NOT NULL,
  shape        integer NOT NULL,
  caller       integer,
  api_key      integer,
  client_ipv4  integer,
  latency_us   integer,
  request_uuid uuid,
  hash         bytea NOT NULL,
  latency_ms   double precision,
  client_ip    integer,
  request_text text,
  details      text
);
INSERT INTO audit_entries_045
  SELECT o.id, o.timestamp, sh.id, c.id, k.id, o.client_ipv4,
         CASE WHEN ${latencyExact} THEN ${latencyMicroseconds}::integer END, o.request_uuid, o.hash,
         CASE WHEN ${latencyExact} THEN NULL ELSE o.latency_ms END, o.client_ip, o.request_text, o.details
  FROM audit_entries o
  JOIN audit_045_codes sh ON sh.codes = ${codeTuple(shapeMembers)}
  LEFT JOIN audit_045_codes c ON c.codes = ${codeTuple(callerMembers)}
  LEFT JOIN audit_045_codes k ON k.codes = ${codeTuple(keyMembers)}
  ORDER BY o.id;
DROP TABLE audit_045_codes;
DROP VIEW audit_log;
DROP TABLE audit_entries;
ALTER TABLE audit_entries_045 RENAME TO audit_entries;
ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_pkey PRIMARY KEY (id) WITH (fillfactor = 100);
ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_hash_length CHECK (octet_length(hash) = 32);
CREATE INDEX audit_by_time ON audit_entries (timestamp, caller, shape) WITH (fillfactor = 100);
CREATE INDEX audit_exceptions_by_time ON audit_entries (timestamp, caller, shape) WITH (fillfactor = 100) WHERE shape < 0;
-- The strings are now in the tuples; only the client IPs coded one at a time stay.
DELETE FROM audit_strings WHERE id NOT IN (SELECT client_ip FROM audit_entries WHERE client_ip IS NOT NULL);
CREATE VIEW audit_log AS SELECT
  ${viewColumns}
FROM audit_entries e
LEFT JOIN audit_tuples sh ON sh.id = e.shape
LEFT JOIN audit_tuples c ON c.id = e.caller
LEFT JOIN audit_tuples k ON k.id = e.api_key;
`,
};
