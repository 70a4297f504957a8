/**
 * Migration 003: brute-force protection (settings, failure counters, bans and lockouts) and the
 * audit log with its hash chain. Times are epoch milliseconds (UTC).
 */
import type { Migration } from './index.js';

export const bruteForceAndAudit: Migration = {
  version: 3,
  name: '003-brute-force-and-audit',
  sql: `
-- One row: the security settings as JSON (validated by the server before it is written).
CREATE TABLE security_settings (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  settings   TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

-- Failure counters and the bans or lockouts they lead to, one row per counted subject:
--   scope 'ip':      subject = client IP
--   scope 'key':     subject = client IP + ' ' + credential id (sha256:<16 hex> of the presented credential)
--   scope 'account': subject = user id
CREATE TABLE brute_force_entries (
  scope             TEXT NOT NULL CHECK (scope IN ('ip', 'key', 'account')),
  subject           TEXT NOT NULL,
  ip                TEXT,
  key_id            TEXT,
  user_id           TEXT REFERENCES users (id) ON DELETE CASCADE,
  failures          INTEGER NOT NULL DEFAULT 0,
  window_started_at INTEGER NOT NULL,
  last_failure_at   INTEGER NOT NULL,
  lockouts          INTEGER NOT NULL DEFAULT 0,
  banned_until      INTEGER,
  PRIMARY KEY (scope, subject)
) STRICT, WITHOUT ROWID;
CREATE INDEX brute_force_by_ban ON brute_force_entries (banned_until) WHERE banned_until IS NOT NULL;
CREATE INDEX brute_force_by_last_failure ON brute_force_entries (last_failure_at);
CREATE INDEX brute_force_by_user ON brute_force_entries (user_id) WHERE user_id IS NOT NULL;

-- The audit log. Two indexes only (time; status and time): each one costs every record a B-tree
-- insert (in the writer thread), and the substring filters cannot seek an index anyway.
-- Append-only: no API edits or deletes rows; retention pruning deletes the oldest
-- rows and moves the chain anchor. Each row's hash covers prev_hash and a canonical encoding of
-- the row, so an edited row no longer matches its hash.
CREATE TABLE audit_log (
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
  prev_hash      TEXT NOT NULL,
  hash           TEXT NOT NULL
) STRICT;
-- username rides along in both, so the user filter (a substring: no index can seek it) is checked
-- in the index without reading the row, for the count and for the page.
CREATE INDEX audit_by_time ON audit_log (timestamp, username);
CREATE INDEX audit_by_status_time ON audit_log (status, timestamp, username);

-- Where the chain starts after retention pruning: the id and hash of the last pruned row. The
-- first remaining row must carry that hash as its prev_hash.
CREATE TABLE audit_chain_anchor (
  id              INTEGER PRIMARY KEY CHECK (id = 1),
  last_pruned_id  INTEGER NOT NULL,
  last_pruned_hash TEXT NOT NULL,
  pruned_at       INTEGER NOT NULL
) STRICT;
`,
  postgres: `
CREATE TABLE security_settings (
  id         integer PRIMARY KEY CHECK (id = 1),
  settings   text NOT NULL,
  updated_at bigint NOT NULL
);
CREATE TABLE brute_force_entries (
  scope             text NOT NULL CHECK (scope IN ('ip', 'key', 'account')),
  subject           text NOT NULL,
  ip                text,
  key_id            text,
  user_id           text REFERENCES users (id) ON DELETE CASCADE,
  failures          integer NOT NULL DEFAULT 0,
  window_started_at bigint NOT NULL,
  last_failure_at   bigint NOT NULL,
  lockouts          integer NOT NULL DEFAULT 0,
  banned_until      bigint,
  PRIMARY KEY (scope, subject)
);
CREATE INDEX brute_force_by_ban ON brute_force_entries (banned_until) WHERE banned_until IS NOT NULL;
CREATE INDEX brute_force_by_last_failure ON brute_force_entries (last_failure_at);
CREATE INDEX brute_force_by_user ON brute_force_entries (user_id) WHERE user_id IS NOT NULL;
CREATE TABLE audit_log (
  id             bigint PRIMARY KEY,          -- assigned under the chain lock: id order = chain order, no gaps
  timestamp      bigint NOT NULL,
  event_type     text NOT NULL,
  category       text NOT NULL,
  auth_type      text NOT NULL,
  user_id        text,
  username       text,
  api_key_id     text,
  api_key_name   text,
  api_key_prefix text,
  model_id       text,
  model_name     text,
  model_type     text,
  method         text,
  route          text,
  endpoint       text,
  action         text NOT NULL,
  target         text,
  status         text NOT NULL,
  http_status    integer,
  reason         text,
  request_id     text,
  latency_ms     double precision,
  client_ip      text,
  details        text,
  prev_hash      text NOT NULL,
  hash           text NOT NULL
);
CREATE INDEX audit_by_time ON audit_log (timestamp, username);
CREATE INDEX audit_by_status_time ON audit_log (status, timestamp, username);
CREATE TABLE audit_chain_anchor (
  id               integer PRIMARY KEY CHECK (id = 1),
  last_pruned_id   bigint NOT NULL,
  last_pruned_hash text NOT NULL,
  pruned_at        bigint NOT NULL
);
-- PG only: the chain head, locked FOR UPDATE by every append (one chain for the whole deployment).
CREATE TABLE audit_chain_head (
  id        integer PRIMARY KEY CHECK (id = 1),
  last_id   bigint NOT NULL,
  last_hash text NOT NULL
);
INSERT INTO audit_chain_head VALUES (1, 0, repeat('0', 64));
`,
};
