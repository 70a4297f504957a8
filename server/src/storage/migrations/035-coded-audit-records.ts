/**
 * Migration 035: audit records in a coded form, under 200 bytes each with their indexes (issue 20).
 *
 * - `audit_strings`: every text value of the coded columns stored once (`id` → `value`).
 * - `audit_entries`: the records. The nineteen repeated text fields (`event_type` … `client_ip`) hold
 *   `audit_strings` ids; a client IP in dotted-quad form is a 32-bit integer in `client_ipv4` instead
 *   (records written before keep theirs coded); `request_id` is 16 raw bytes when it is a lowercase
 *   UUID (SQLite: a BLOB in an `ANY` column, text otherwise; PostgreSQL: `request_uuid uuid`, or
 *   `request_text`); the record's
 *   own `hash` stays 32 raw bytes. `prev_hash` is **not stored**: it is by definition the `hash` of the
 *   record before (id − 1), or the pruning anchor's hash, or the genesis hash for record 1, so it is
 *   derived when read. The hashed canonical form is unchanged: every record written before verifies.
 * - `audit_log`: a view with the columns and types of the table it replaces (digests as 32-byte
 *   BLOB/bytea, text decoded), for reading: verification, export, `svc-migrate-storage`, ad-hoc SQL.
 * - Indexes on codes: `(timestamp, username)` and `(status, timestamp, username)` as before on SQLite;
 *   `(timestamp, username, status)` and `(status, timestamp)` on PostgreSQL (see there why).
 * - `audit_chain_anchor.strings_pruned`: how many times retention deleted strings no record uses any
 *   more; a writer that sees it move forgets the ids it cached (they may be gone or reused).
 *
 * Ids stay as they were; a database whose ids restarted at 1 after a full prune (possible on SQLite
 * before this migration) is renumbered after the anchor, so id − 1 is always the previous link (ids
 * are not hashed).
 */
import type { Migration } from './index.js';

/** The coded columns, in the order of the record's fields. */
const coded = [
  'event_type', 'category', 'auth_type', 'user_id', 'username', 'api_key_id', 'api_key_name', 'api_key_prefix', 'model_id',
  'model_name', 'model_type', 'method', 'route', 'endpoint', 'action', 'target', 'status', 'reason', 'client_ip',
] as const;
const required = new Set(['event_type', 'category', 'auth_type', 'action', 'status']);

const uuidGlob = '[0-9a-f]'.repeat(8) + '-' + '[0-9a-f]'.repeat(4) + '-' + '[0-9a-f]'.repeat(4) + '-' + '[0-9a-f]'.repeat(4) + '-' + '[0-9a-f]'.repeat(12);
const uuidPattern = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

const decodedValue = (column: string): string => `(SELECT s.value FROM audit_strings s WHERE s.id = e.${column})`;
const decoded = (column: string): string => `${decodedValue(column)} AS ${column}`;
/** The dotted quad of `client_ipv4` (a signed 32-bit integer), in either dialect. */
const ipv4Text = (cast: string): string =>
  [24, 16, 8, 0].map((shift) => `((e.client_ipv4 >> ${shift}) & 255)${cast}`).join(" || '.' || ");
const codeOf = (column: string): string => `(SELECT s.id FROM audit_strings s WHERE s.value = o.${column})`;

/** The view's columns, in the old table's order. */
function viewColumns(requestId: string, previousHash: string, cast: string): string {
  return [
    'e.id', 'e.timestamp',
    ...coded.slice(0, coded.indexOf('status') + 1).map(decoded),
    'e.http_status', decoded('reason'), `${requestId} AS request_id`, 'e.latency_ms',
    `coalesce(${decodedValue('client_ip')}, ${ipv4Text(cast)}) AS client_ip`, 'e.details',
    `${previousHash} AS prev_hash`, 'e.hash',
  ].join(',\n  ');
}

const sqliteRequestId =
  "CASE WHEN typeof(e.request_id) = 'blob' THEN lower(substr(hex(e.request_id), 1, 8) || '-' || substr(hex(e.request_id), 9, 4) || '-' || " +
  "substr(hex(e.request_id), 13, 4) || '-' || substr(hex(e.request_id), 17, 4) || '-' || substr(hex(e.request_id), 21)) ELSE e.request_id END";
const sqlitePreviousHash =
  'CASE WHEN e.id - 1 = coalesce((SELECT a.last_pruned_id FROM audit_chain_anchor a WHERE a.id = 1), 0) ' +
  'THEN coalesce((SELECT unhex(a.last_pruned_hash) FROM audit_chain_anchor a WHERE a.id = 1), zeroblob(32)) ' +
  'ELSE (SELECT p.hash FROM audit_entries p WHERE p.id = e.id - 1) END';
const postgresPreviousHash =
  'CASE WHEN e.id - 1 = coalesce((SELECT a.last_pruned_id FROM audit_chain_anchor a WHERE a.id = 1), 0) ' +
  "THEN coalesce((SELECT decode(a.last_pruned_hash, 'hex') FROM audit_chain_anchor a WHERE a.id = 1), decode(repeat('0', 64), 'hex')) " +
  'ELSE (SELECT p.hash FROM audit_entries p WHERE p.id = e.id - 1) END';

/** Every distinct value of the coded columns of the old table. */
const distinctValues = coded.map((column) => `SELECT ${column} AS value FROM audit_log WHERE ${column} IS NOT NULL`).join('\nUNION ');

/** The id a record keeps: its own, unless ids restarted at or below the anchor (then: after the anchor, in order). */
const keptId =
  'CASE WHEN (SELECT min(id) FROM audit_log) <= coalesce((SELECT last_pruned_id FROM audit_chain_anchor WHERE id = 1), 0) ' +
  'THEN (SELECT last_pruned_id FROM audit_chain_anchor WHERE id = 1) + row_number() OVER (ORDER BY o.id) ELSE o.id END';

export const codedAuditRecords: Migration = {
  version: 35,
  name: '035-coded-audit-records',
  sql: `
CREATE TABLE audit_strings (
  id    INTEGER PRIMARY KEY,
  value TEXT NOT NULL UNIQUE
) STRICT;
INSERT INTO audit_strings (value) SELECT value FROM (${distinctValues}) ORDER BY value;
CREATE TABLE audit_entries (
  id          INTEGER PRIMARY KEY,
  timestamp   INTEGER NOT NULL,
${coded.map((column) => `  ${column} INTEGER${required.has(column) ? ' NOT NULL' : ''},`).join('\n')}
  client_ipv4 INTEGER,
  http_status INTEGER,
  request_id  ANY,
  latency_ms  REAL,
  details     TEXT,
  hash        BLOB NOT NULL CHECK (length(hash) = 32)
) STRICT;
INSERT INTO audit_entries (id, timestamp, ${coded.join(', ')}, http_status, request_id, latency_ms, details, hash)
  SELECT ${keptId}, o.timestamp, ${coded.map(codeOf).join(', ')}, o.http_status,
         CASE WHEN o.request_id GLOB '${uuidGlob}' THEN unhex(replace(o.request_id, '-', '')) ELSE o.request_id END,
         o.latency_ms, o.details, o.hash
  FROM audit_log o ORDER BY o.id;
DROP TABLE audit_log;
CREATE INDEX audit_by_time ON audit_entries (timestamp, username);
CREATE INDEX audit_by_status_time ON audit_entries (status, timestamp, username);
CREATE VIEW audit_log AS SELECT
  ${viewColumns(sqliteRequestId, sqlitePreviousHash, '')}
FROM audit_entries e;
ALTER TABLE audit_chain_anchor ADD COLUMN strings_pruned INTEGER NOT NULL DEFAULT 0;
`,
  postgres: `
CREATE TABLE audit_strings (
  id    integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  value text NOT NULL
);
INSERT INTO audit_strings (value) SELECT value FROM (${distinctValues}) AS v ORDER BY value;
-- Interning runs under the chain head's lock (appends, imports), so values stay distinct without a
-- unique B-tree, which could not hold a 1,024-character value of multi-byte characters.
CREATE INDEX audit_strings_by_value ON audit_strings USING hash (value);
-- Columns in order of alignment (8-byte, 4-byte, then variable), to waste no padding.
CREATE TABLE audit_entries (
  id           bigint PRIMARY KEY,
  timestamp    bigint NOT NULL,
  latency_ms   double precision,
${coded.map((column) => `  ${column} integer${required.has(column) ? ' NOT NULL' : ''},`).join('\n')}
  client_ipv4  integer,
  http_status  integer,
  request_uuid uuid,
  hash         bytea NOT NULL CONSTRAINT audit_entries_hash_length CHECK (octet_length(hash) = 32),
  request_text text,
  details      text
);
INSERT INTO audit_entries (id, timestamp, latency_ms, ${coded.join(', ')}, http_status, request_uuid, hash, request_text, details)
  SELECT ${keptId}, o.timestamp, o.latency_ms, ${coded.map(codeOf).join(', ')}, o.http_status,
         CASE WHEN o.request_id ~ '${uuidPattern}' THEN o.request_id::uuid END, o.hash,
         CASE WHEN o.request_id ~ '${uuidPattern}' THEN NULL ELSE o.request_id END, o.details
  FROM audit_log o ORDER BY o.id;
DROP TABLE audit_log;
-- PostgreSQL's B-tree packs (status, timestamp) 90% full under appends (a new entry lands just after
-- the last one of its status) but (status, timestamp, username) only half full (71 bytes a record
-- instead of 32, measured); the time index carries status at no cost (alignment padding), so a user
-- and status filter is still checked inside an index.
CREATE INDEX audit_by_time ON audit_entries (timestamp, username, status);
CREATE INDEX audit_by_status_time ON audit_entries (status, timestamp);
CREATE VIEW audit_log AS SELECT
  ${viewColumns('coalesce(e.request_uuid::text, e.request_text)', postgresPreviousHash, '::text')}
FROM audit_entries e;
ALTER TABLE audit_chain_anchor ADD COLUMN strings_pruned integer NOT NULL DEFAULT 0;
UPDATE audit_chain_head SET last_id = coalesce((SELECT max(id) FROM audit_entries), last_id)
  WHERE last_id < coalesce((SELECT max(id) FROM audit_entries), 0);
`,
};
