/**
 * migration 022: the audit log keeps its two SHA-256 digests (`prev_hash`, `hash`) as 32 raw bytes
 * instead of 64 hexadecimal characters, converting every existing record in place (the chain still
 * verifies: the stores hand the digests to `audit/` in hex, as before). Saves 64 bytes of every
 * record. The anchor and PostgreSQL's chain head stay in hex (one row each).
 *
 * SQLite cannot change a column's type: the table is rebuilt (same ids, same order) inside the
 * migration's transaction, with its two indexes. PostgreSQL rewrites the columns with `decode`.
 */
import type { Migration } from './index.js';

export const binaryAuditDigests: Migration = {
  version: 22,
  name: '022-binary-audit-digests',
  sql: `
CREATE TABLE audit_log_017 (
  id             INTEGER PRIMARY KEY,
  timestamp      INTEGER NOT NULL,
  event_type     TEXT NOT NULL,
  category       TEXT NOT NULL,
  auth_type      TEXT NOT NULL,
  user_id        TEXT,
  username       TEXT,
  api_key_id     TEXT,
  api_key_name   TEXT,
  api_key_prefix TEXT,
  model_id       TEXT,
  model_name     TEXT,
  model_type     TEXT,
  method         TEXT,
  route          TEXT,
  endpoint       TEXT,
  action         TEXT NOT NULL,
  target         TEXT,
  status         TEXT NOT NULL,
  http_status    INTEGER,
  reason         TEXT,
  request_id     TEXT,
  latency_ms     REAL,
  client_ip      TEXT,
  details        TEXT,
  prev_hash      BLOB NOT NULL CHECK (length(prev_hash) = 32),
  hash           BLOB NOT NULL CHECK (length(hash) = 32)
) STRICT;
INSERT INTO audit_log_017
  SELECT id, timestamp, event_type, category, auth_type, user_id, username, api_key_id, api_key_name, api_key_prefix,
         model_id, model_name, model_type, method, route, endpoint, action, target, status, http_status, reason,
         request_id, latency_ms, client_ip, details, unhex(prev_hash), unhex(hash)
  FROM audit_log ORDER BY id;
DROP TABLE audit_log;
ALTER TABLE audit_log_017 RENAME TO audit_log;
CREATE INDEX audit_by_time ON audit_log (timestamp, username);
CREATE INDEX audit_by_status_time ON audit_log (status, timestamp, username);
`,
  postgres: `
ALTER TABLE audit_log
  ALTER COLUMN prev_hash TYPE bytea USING decode(prev_hash, 'hex'),
  ALTER COLUMN hash TYPE bytea USING decode(hash, 'hex'),
  ADD CONSTRAINT audit_log_prev_hash_length CHECK (octet_length(prev_hash) = 32),
  ADD CONSTRAINT audit_log_hash_length CHECK (octet_length(hash) = 32);
`,
};
