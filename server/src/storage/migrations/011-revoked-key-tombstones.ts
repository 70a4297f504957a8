/**
 * Migration 011: tombstones of deleted API keys. When a key is deleted its lookup digest stays
 * here, so a stale client still sending it is recognised as a credential the server issued (and
 * revoked), not counted as a guess (issue 14, H7). The digest is the SHA-256 of the key, as in
 * `api_keys.key_hash`: it cannot be turned back into the key.
 */
import type { Migration } from './index.js';

export const revokedKeyTombstones: Migration = {
  version: 11,
  name: '011-revoked-key-tombstones',
  sql: `
CREATE TABLE revoked_api_keys (
  key_hash   BLOB PRIMARY KEY,
  key_id     TEXT NOT NULL,
  revoked_at INTEGER NOT NULL
);
`,
  postgres: `
CREATE TABLE revoked_api_keys (
  key_hash   bytea PRIMARY KEY,
  key_id     text NOT NULL,
  revoked_at bigint NOT NULL
);
`,
};
