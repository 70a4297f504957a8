/**
 * Migration 047: SQLite's `api_keys` keyed by a **lookup slot**, an `INTEGER PRIMARY KEY` made of the
 * digest's first 8 bytes (`storage/sqlite/api-key-slots.ts`), instead of a `WITHOUT ROWID` table keyed
 * by the 32-byte digest (issue 20: key verification at 1,000,000 keys cost 1.29× what it cost at 100).
 *
 * Measured on a seeded database of 1,000,000 keys (`dbstat`): a `WITHOUT ROWID` table's interior
 * pages hold whole rows, about 21 per 4 KiB page, so the table was five levels deep (1 + 5 + 92 +
 * 2,031 interior pages above 45,109 leaves), against two at 100 keys; each level a binary search
 * that parses records and compares digests. A rowid B-tree's interior cells are an integer and a
 * child pointer (about 240 per page): three levels at 1,000,000 keys, integer comparisons only.
 *
 * - Every column stays, in the same order, after `slot`; `key_hash` keeps its uniqueness (a `UNIQUE`
 *   index, which lookups never use: they read the slot range and compare the digest on the row).
 * - Every key is moved to its slot, in slot order (so the leaves are filled, not half-split). A key
 *   whose slot is taken (two digests sharing 8 bytes: about 3 × 10⁻⁸ at a million keys) takes the
 *   next free one of its range of eight, as the store's `create` does. Should one find no free slot the
 *   migration fails (`every_key_has_a_lookup_slot`) and the database stays as it was: never a key
 *   left behind.
 * - The indexes (`id`, `api_keys_by_user`) and the cache-epoch triggers of migrations 021 and 031 are
 *   recreated as they were: the `access` epoch moves on the same changes. Revoked-key tombstones
 *   (011) are a table of their own and do not change.
 *
 * PostgreSQL keeps its heap table and B-tree index on the digest (it met the goal: 1.09×).
 */
import type { Migration } from './index.js';

/** The old table's columns, in its order (001, then 015's and 030's additions). */
const columns = [
  'key_hash', 'id', 'user_id', 'key_prefix', 'ciphertext', 'encryption_key_id', 'name', 'description', 'enabled', 'expires_at',
  'last_used_at', 'model_permissions', 'permissions', 'created_at', 'updated_at',
  'rate_limit_max_failures', 'rate_limit_window_seconds', 'rate_limit_ban_seconds', 'limits',
].join(', ');

/** As in `api-key-slots.ts`: how many slots a digest may take. */
const PROBES = 8;

/** The value of hex digit `position` (1-based) of the text `h`. */
const nibble = (position: number): string => `(instr('0123456789ABCDEF', substr(h, ${position}, 1)) - 1)`;

/**
 * SQL for the first 8 bytes of the digest as a signed big-endian 64-bit integer, from `h`, their hex
 * (SQLite has no function for it; shifts are two's complement, so a first byte ≥ 0x80 gives a
 * negative slot, as `Buffer.readBigInt64BE` does).
 */
export const sqliteDigestPrefix = Array.from({ length: 8 }, (_, byte) => `((${nibble(2 * byte + 1)} * 16 + ${nibble(2 * byte + 2)}) << ${56 - 8 * byte})`).join(' | ');

/** The start of the highest range of slots (`api-key-slots.ts`): the largest 64-bit integer minus 7. */
const HIGHEST_RANGE_START = '9223372036854775800';

/**
 * Moves the keys not moved yet into slot `step` of their range (which starts at their own slot, or
 * at the highest range's start for the eight highest, as in `api-key-slots.ts`).
 */
function placeKeys(step: number): string {
  const pending = step === 0 ? '' : `WHERE (SELECT count(*) FROM api_keys) > (SELECT count(*) FROM api_keys_047)
  AND key_hash NOT IN (SELECT key_hash FROM api_keys_047)`;
  return `INSERT OR IGNORE INTO api_keys_047 (slot, ${columns})
SELECT min(prefix, ${HIGHEST_RANGE_START}) + ${step}, ${columns}
FROM (SELECT ${sqliteDigestPrefix} AS prefix, ${columns} FROM (SELECT hex(substr(key_hash, 1, 8)) AS h, ${columns} FROM api_keys))
${pending}
ORDER BY prefix;`;
}

const cachedKeyColumns =
  'key_hash, id, user_id, ciphertext, encryption_key_id, name, description, enabled, expires_at, model_permissions, permissions,\n  rate_limit_max_failures, rate_limit_window_seconds, rate_limit_ban_seconds, limits';
const bumpAccess = "BEGIN UPDATE cache_epochs SET epoch = epoch + 1 WHERE domain = 'access'; END";

export const apiKeyLookupSlots: Migration = {
  version: 47,
  name: '047-api-key-lookup-slots',
  sql: `
CREATE TABLE api_keys_047 (
  slot                      INTEGER PRIMARY KEY,       -- the digest's first 8 bytes, signed big-endian (or another of its range)
  key_hash                  BLOB NOT NULL UNIQUE,      -- SHA-256 of the plaintext key
  id                        TEXT NOT NULL UNIQUE,
  user_id                   TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key_prefix                TEXT NOT NULL,
  ciphertext                BLOB NOT NULL,             -- format byte | nonce | AES-256-GCM ciphertext | tag
  encryption_key_id         TEXT NOT NULL,             -- fingerprint of the key that encrypted it
  name                      TEXT NOT NULL,
  description               TEXT,
  enabled                   INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  expires_at                INTEGER,
  last_used_at              INTEGER,
  model_permissions         TEXT NOT NULL,             -- JSON array of {permission_type, permission_value}
  permissions               TEXT,                      -- JSON array narrowing the owner's, or NULL
  created_at                INTEGER NOT NULL,
  updated_at                INTEGER NOT NULL,
  rate_limit_max_failures   INTEGER,
  rate_limit_window_seconds INTEGER,
  rate_limit_ban_seconds    INTEGER,
  limits                    TEXT
) STRICT;
${Array.from({ length: PROBES }, (_, step) => placeKeys(step)).join('\n')}
CREATE TEMP TABLE migration_047_check (unplaced INTEGER CONSTRAINT every_key_has_a_lookup_slot CHECK (unplaced = 0));
INSERT INTO migration_047_check SELECT (SELECT count(*) FROM api_keys) - (SELECT count(*) FROM api_keys_047);
DROP TABLE migration_047_check;
DROP TABLE api_keys;
ALTER TABLE api_keys_047 RENAME TO api_keys;
CREATE INDEX api_keys_by_user ON api_keys (user_id, created_at);
-- The cache epochs as migrations 021 and 031 left them (last_used_at and slot are left out).
CREATE TRIGGER api_keys_cache_epoch_insert AFTER INSERT ON api_keys ${bumpAccess};
CREATE TRIGGER api_keys_cache_epoch_update AFTER UPDATE OF
  ${cachedKeyColumns}
  ON api_keys ${bumpAccess};
CREATE TRIGGER api_keys_cache_epoch_delete AFTER DELETE ON api_keys ${bumpAccess};
`,
  // PostgreSQL keeps its table: its B-tree on the digest already meets the goal (1.09×).
  postgres: 'SELECT 1;',
};
