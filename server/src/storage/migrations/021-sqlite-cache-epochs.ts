/**
 * migration 021: cache epochs for SQLite, the same table and the same rules as PostgreSQL's (004 and
 * 015), so the SQLite change feed reports exactly the domains a commit touched. Until now it took
 * `PRAGMA data_version` alone, which moves on every commit to the file, audit appends and
 * `last_used_at` touches included, so every process dropped its user, key and ban caches dozens of
 * times a second under audited load (issue 20). The feed still reads `data_version` first (cheap,
 * once per turn) and reads these epochs only when it moved.
 *
 * SQLite's triggers run once per row (it has no statement triggers and no TRUNCATE: a `DELETE`
 * without `WHERE` fires them for each row, since triggers disable the truncate optimisation). The
 * epochs are compared for equality only, so a statement that bumps one several times is fine. The
 * rules, as on PostgreSQL: `access` for users, user_permissions and api_keys (but not an update that
 * sets only `last_used_at`, or other columns no cache decides on); `bans` for a brute-force row only
 * when a ban starts, ends or changes; `models` for models. Model families, settings, sessions and
 * OIDC rows are read from the database on every use, so no epoch covers them.
 */
import type { Migration } from './index.js';

const bump = (domain: 'access' | 'bans' | 'models'): string => `BEGIN UPDATE cache_epochs SET epoch = epoch + 1 WHERE domain = '${domain}'; END`;

/** The columns of `api_keys` a cached key depends on (PostgreSQL: migration 015's trigger). */
const cachedKeyColumns = [
  'key_hash',
  'id',
  'user_id',
  'ciphertext',
  'encryption_key_id',
  'name',
  'description',
  'enabled',
  'expires_at',
  'model_permissions',
  'permissions',
  'rate_limit_max_failures',
  'rate_limit_window_seconds',
  'rate_limit_ban_seconds',
].join(', ');

export const sqliteCacheEpochs: Migration = {
  version: 21,
  name: '021-sqlite-cache-epochs',
  sql: `
CREATE TABLE cache_epochs (
  domain TEXT PRIMARY KEY CHECK (domain IN ('access', 'bans', 'models')),
  epoch  INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
INSERT INTO cache_epochs (domain) VALUES ('access'), ('bans'), ('models');

CREATE TRIGGER users_cache_epoch_insert AFTER INSERT ON users ${bump('access')};
CREATE TRIGGER users_cache_epoch_update AFTER UPDATE ON users ${bump('access')};
CREATE TRIGGER users_cache_epoch_delete AFTER DELETE ON users ${bump('access')};
CREATE TRIGGER user_permissions_cache_epoch_insert AFTER INSERT ON user_permissions ${bump('access')};
CREATE TRIGGER user_permissions_cache_epoch_update AFTER UPDATE ON user_permissions ${bump('access')};
CREATE TRIGGER user_permissions_cache_epoch_delete AFTER DELETE ON user_permissions ${bump('access')};
-- last_used_at is left out: it is written on the hot path and no cache decides on it.
CREATE TRIGGER api_keys_cache_epoch_insert AFTER INSERT ON api_keys ${bump('access')};
CREATE TRIGGER api_keys_cache_epoch_update AFTER UPDATE OF ${cachedKeyColumns} ON api_keys ${bump('access')};
CREATE TRIGGER api_keys_cache_epoch_delete AFTER DELETE ON api_keys ${bump('access')};
CREATE TRIGGER brute_force_ban_inserted AFTER INSERT ON brute_force_entries
  WHEN NEW.banned_until IS NOT NULL ${bump('bans')};
CREATE TRIGGER brute_force_ban_changed AFTER UPDATE ON brute_force_entries
  WHEN OLD.banned_until IS NOT NEW.banned_until ${bump('bans')};
CREATE TRIGGER brute_force_ban_deleted AFTER DELETE ON brute_force_entries
  WHEN OLD.banned_until IS NOT NULL ${bump('bans')};
CREATE TRIGGER models_cache_epoch_insert AFTER INSERT ON models ${bump('models')};
CREATE TRIGGER models_cache_epoch_update AFTER UPDATE ON models ${bump('models')};
CREATE TRIGGER models_cache_epoch_delete AFTER DELETE ON models ${bump('models')};
`,
  // PostgreSQL has had these epochs and triggers since 004 (and 015): nothing changes there.
  postgres: 'SELECT 1;',
};
