/**
 * Migration 001: users, their permissions, API keys and refresh-token sessions. Times are epoch
 * milliseconds (UTC). Secrets are never stored: API keys as SHA-256 (lookup) and AES-256-GCM
 * (reveal), refresh tokens as SHA-256.
 */
import type { Migration } from './index.js';

export const initialSchema: Migration = {
  version: 1,
  name: '001-initial-schema',
  sql: `
CREATE TABLE users (
  id                   TEXT PRIMARY KEY,
  username             TEXT NOT NULL COLLATE NOCASE UNIQUE,
  password_hash        TEXT NOT NULL,
  source               TEXT NOT NULL CHECK (source IN ('setup', 'local', 'migrated')),
  enabled              INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  must_change_password INTEGER NOT NULL DEFAULT 0 CHECK (must_change_password IN (0, 1)),
  -- Bumped by password change, disable and delete: access tokens carry it and die with it.
  token_version        INTEGER NOT NULL DEFAULT 0,
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL
) STRICT;

CREATE TABLE user_permissions (
  user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  permission TEXT NOT NULL,
  PRIMARY KEY (user_id, permission)
) STRICT, WITHOUT ROWID;

-- Keyed by the digest (WITHOUT ROWID): verifying a key walks one B-tree, however many keys exist.
CREATE TABLE api_keys (
  key_hash          BLOB PRIMARY KEY,         -- SHA-256 of the plaintext key
  id                TEXT NOT NULL UNIQUE,
  user_id           TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key_prefix        TEXT NOT NULL,
  ciphertext        BLOB NOT NULL,            -- format byte | nonce | AES-256-GCM ciphertext | tag
  encryption_key_id TEXT NOT NULL,            -- fingerprint of the key that encrypted it
  name              TEXT NOT NULL,
  description       TEXT,
  enabled           INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  expires_at        INTEGER,
  last_used_at      INTEGER,
  model_permissions TEXT NOT NULL,            -- JSON array of {permission_type, permission_value}
  permissions       TEXT,                     -- JSON array narrowing the owner's, or NULL
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX api_keys_by_user ON api_keys (user_id, created_at);

-- One row per login session; rotation keeps the family and replaces its tokens.
CREATE TABLE refresh_families (
  id                 TEXT PRIMARY KEY,
  user_id            TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at         INTEGER NOT NULL,
  absolute_expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX refresh_families_by_user ON refresh_families (user_id);
CREATE INDEX refresh_families_by_expiry ON refresh_families (absolute_expires_at);

CREATE TABLE refresh_tokens (
  token_hash BLOB PRIMARY KEY,                -- SHA-256 of the token
  family_id  TEXT NOT NULL REFERENCES refresh_families (id) ON DELETE CASCADE,
  issued_at  INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  rotated_at INTEGER                          -- set when exchanged; presenting it again is reuse
) STRICT, WITHOUT ROWID;
CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at);
`,
  postgres: `
CREATE TABLE users (
  id                   text PRIMARY KEY,
  username             text NOT NULL,
  password_hash        text NOT NULL,
  source               text NOT NULL CHECK (source IN ('setup', 'local', 'migrated')),
  enabled              boolean NOT NULL DEFAULT true,
  must_change_password boolean NOT NULL DEFAULT false,
  token_version        integer NOT NULL DEFAULT 0,
  created_at           bigint NOT NULL,
  updated_at           bigint NOT NULL
);
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE TABLE user_permissions (
  user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  permission text NOT NULL,
  PRIMARY KEY (user_id, permission)
);
CREATE INDEX user_permissions_admins ON user_permissions (user_id) WHERE permission = 'admin';
CREATE TABLE api_keys (
  key_hash          bytea PRIMARY KEY,
  id                text NOT NULL UNIQUE,
  user_id           text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key_prefix        text NOT NULL,
  ciphertext        bytea NOT NULL,
  encryption_key_id text NOT NULL,
  name              text NOT NULL,
  description       text,
  enabled           boolean NOT NULL DEFAULT true,
  expires_at        bigint,
  last_used_at      bigint,
  model_permissions text NOT NULL,
  permissions       text,
  created_at        bigint NOT NULL,
  updated_at        bigint NOT NULL
);
CREATE INDEX api_keys_by_user ON api_keys (user_id, created_at);
CREATE TABLE refresh_families (
  id                  text PRIMARY KEY,
  user_id             text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at          bigint NOT NULL,
  absolute_expires_at bigint NOT NULL
);
CREATE INDEX refresh_families_by_user ON refresh_families (user_id);
CREATE INDEX refresh_families_by_expiry ON refresh_families (absolute_expires_at);
CREATE TABLE refresh_tokens (
  token_hash bytea PRIMARY KEY,
  family_id  text NOT NULL REFERENCES refresh_families (id) ON DELETE CASCADE,
  issued_at  bigint NOT NULL,
  expires_at bigint NOT NULL,
  rotated_at bigint
);
CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at);
`,
};
