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
};
