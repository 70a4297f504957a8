/**
 * Migration 004: cache epochs for PostgreSQL. Each cached domain (`access`: users, permissions and
 * keys; `bans`; `models`) has an epoch that triggers bump in the writing transaction, with a
 * `pg_notify('svc_cache', '<domain>:<epoch>')` delivered at commit (never after a rollback). Every
 * svc process compares the epochs before trusting its caches (the epoch gate) and drops them at once
 * on a notification. Triggers rather than adapter calls: the bump cannot be forgotten, by any
 * adapter method, offline tool, cascaded delete or an operator's manual SQL.
 *
 * SQLite needs nothing: `PRAGMA data_version` changes on every commit of another connection.
 */
import type { Migration } from './index.js';

export const cacheEpochs: Migration = {
  version: 4,
  name: '004-cache-epochs',
  // Nothing to do on SQLite: PRAGMA data_version is its epoch.
  sql: '',
  postgres: `
CREATE TABLE cache_epochs (
  domain text PRIMARY KEY CHECK (domain IN ('access', 'bans', 'models')),
  epoch  bigint NOT NULL DEFAULT 0
);
INSERT INTO cache_epochs (domain) VALUES ('access'), ('bans'), ('models');
CREATE FUNCTION svc_bump_cache_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  next_epoch bigint;
BEGIN
  UPDATE cache_epochs SET epoch = epoch + 1 WHERE domain = TG_ARGV[0] RETURNING epoch INTO next_epoch;
  PERFORM pg_notify('svc_cache', TG_ARGV[0] || ':' || next_epoch);
  RETURN NULL;
END
$$;
CREATE TRIGGER users_cache_epoch AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION svc_bump_cache_epoch('access');
CREATE TRIGGER user_permissions_cache_epoch AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON user_permissions
  FOR EACH STATEMENT EXECUTE FUNCTION svc_bump_cache_epoch('access');
-- last_used_at is left out: it is written on the hot path and no cache decides on it.
CREATE TRIGGER api_keys_cache_epoch AFTER INSERT OR DELETE OR TRUNCATE
  OR UPDATE OF key_hash, id, user_id, ciphertext, encryption_key_id, name, description, enabled, expires_at, model_permissions, permissions
  ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION svc_bump_cache_epoch('access');
CREATE TRIGGER brute_force_ban_inserted AFTER INSERT ON brute_force_entries
  FOR EACH ROW WHEN (NEW.banned_until IS NOT NULL) EXECUTE FUNCTION svc_bump_cache_epoch('bans');
CREATE TRIGGER brute_force_ban_changed AFTER UPDATE ON brute_force_entries
  FOR EACH ROW WHEN (OLD.banned_until IS DISTINCT FROM NEW.banned_until) EXECUTE FUNCTION svc_bump_cache_epoch('bans');
CREATE TRIGGER brute_force_ban_deleted AFTER DELETE ON brute_force_entries
  FOR EACH ROW WHEN (OLD.banned_until IS NOT NULL) EXECUTE FUNCTION svc_bump_cache_epoch('bans');
CREATE TRIGGER models_cache_epoch AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON models
  FOR EACH STATEMENT EXECUTE FUNCTION svc_bump_cache_epoch('models');
`,
};
