/**
 * Migration 002: launched models and registered (custom) model families, so both survive a
 * restart and are shared by every process on one `SVC_HOME`. An upstream model's API key is stored
 * AES-256-GCM encrypted with the API-key encryption key (never in plaintext).
 */
import type { Migration } from './index.js';

export const modelsSchema: Migration = {
  version: 2,
  name: '002-models',
  sql: `
CREATE TABLE model_families (
  model_type                    TEXT NOT NULL,
  model_name                    TEXT NOT NULL,
  model_ability                 TEXT NOT NULL,  -- JSON array of chat | generate | embed
  requires_system_message_first INTEGER NOT NULL DEFAULT 0 CHECK (requires_system_message_first IN (0, 1)),
  dimensions                    INTEGER,
  description                   TEXT,
  definition                    TEXT NOT NULL,  -- the registered JSON, as given
  created_by                    TEXT,
  created_at                    INTEGER NOT NULL,
  PRIMARY KEY (model_type, model_name)
) STRICT, WITHOUT ROWID;

CREATE TABLE models (
  uid                           TEXT PRIMARY KEY,
  model_name                    TEXT NOT NULL,
  model_type                    TEXT NOT NULL,
  model_engine                  TEXT NOT NULL CHECK (model_engine IN ('builtin', 'upstream')),
  model_ability                 TEXT NOT NULL,
  requires_system_message_first INTEGER NOT NULL DEFAULT 0 CHECK (requires_system_message_first IN (0, 1)),
  dimensions                    INTEGER,
  upstream_base_url             TEXT,
  upstream_model                TEXT,
  upstream_key_ciphertext       BLOB,
  upstream_key_encryption_id    TEXT,
  launched_by                   TEXT,
  created_at                    INTEGER NOT NULL
) STRICT;

CREATE INDEX models_by_family ON models (model_type, model_name);
`,
  postgres: `
CREATE TABLE model_families (
  model_type                    text NOT NULL,
  model_name                    text NOT NULL,
  model_ability                 text NOT NULL,
  requires_system_message_first boolean NOT NULL DEFAULT false,
  dimensions                    integer,
  description                   text,
  definition                    text NOT NULL,
  created_by                    text,
  created_at                    bigint NOT NULL,
  PRIMARY KEY (model_type, model_name)
);
CREATE TABLE models (
  uid                           text PRIMARY KEY,
  model_name                    text NOT NULL,
  model_type                    text NOT NULL,
  model_engine                  text NOT NULL CHECK (model_engine IN ('builtin', 'upstream')),
  model_ability                 text NOT NULL,
  requires_system_message_first boolean NOT NULL DEFAULT false,
  dimensions                    integer,
  upstream_base_url             text,
  upstream_model                text,
  upstream_key_ciphertext       bytea,
  upstream_key_encryption_id    text,
  launched_by                   text,
  created_at                    bigint NOT NULL
);
CREATE INDEX models_by_family ON models (model_type, model_name);
`,
};
