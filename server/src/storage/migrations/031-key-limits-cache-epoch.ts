/**
 * Migration 031: a key's usage limits (`api_keys.limits`, migration 030) are cached with the key by
 * the authenticator, so on SQLite a change to them must move the `access` epoch like the other
 * cached columns (021). PostgreSQL's statement trigger already lists `limits` (030).
 */
import type { Migration } from './index.js';

export const keyLimitsCacheEpoch: Migration = {
  version: 31,
  name: '031-key-limits-cache-epoch',
  sql: `
DROP TRIGGER api_keys_cache_epoch_update;
CREATE TRIGGER api_keys_cache_epoch_update AFTER UPDATE OF
  key_hash, id, user_id, ciphertext, encryption_key_id, name, description, enabled, expires_at, model_permissions, permissions,
  rate_limit_max_failures, rate_limit_window_seconds, rate_limit_ban_seconds, limits
  ON api_keys BEGIN UPDATE cache_epochs SET epoch = epoch + 1 WHERE domain = 'access'; END;
`,
  postgres: `
-- Nothing to change: migration 030 already added limits to the api_keys_cache_epoch trigger.
SELECT 1;
`,
};
