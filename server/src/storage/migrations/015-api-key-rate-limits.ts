/**
 * Migration 015: per-key brute-force thresholds, as the reference server stores them. When
 * `rate_limit_max_failures` is set, failures of that key from one client IP are counted against
 * it (not the global `key` setting); the window and ban length fall back to the global setting
 * when null. Nullable, no defaults: existing keys keep the global setting.
 */
import type { Migration } from './index.js';

export const apiKeyRateLimits: Migration = {
  version: 15,
  name: '015-api-key-rate-limits',
  sql: `
ALTER TABLE api_keys ADD COLUMN rate_limit_max_failures INTEGER;
ALTER TABLE api_keys ADD COLUMN rate_limit_window_seconds INTEGER;
ALTER TABLE api_keys ADD COLUMN rate_limit_ban_seconds INTEGER;
`,
  postgres: `
ALTER TABLE api_keys ADD COLUMN rate_limit_max_failures integer;
ALTER TABLE api_keys ADD COLUMN rate_limit_window_seconds integer;
ALTER TABLE api_keys ADD COLUMN rate_limit_ban_seconds integer;
-- The thresholds are cached with the key: a change to them must move the access epoch (004).
DROP TRIGGER api_keys_cache_epoch ON api_keys;
CREATE TRIGGER api_keys_cache_epoch AFTER INSERT OR DELETE OR TRUNCATE
  OR UPDATE OF key_hash, id, user_id, ciphertext, encryption_key_id, name, description, enabled, expires_at, model_permissions, permissions,
    rate_limit_max_failures, rate_limit_window_seconds, rate_limit_ban_seconds
  ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION svc_bump_cache_epoch('access');
`,
};
