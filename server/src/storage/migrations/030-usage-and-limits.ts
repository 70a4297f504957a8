/**
 * Migration 030: usage limits and metering (issue 17).
 *
 * - `api_keys.limits` and `users.limits`: the limits set on a key or a user, as the JSON of the
 *   contract's `UsageLimits` (null: none set).
 * - `usage_totals`: metered model calls summed per UTC hour, key, user and model. Kept beyond the
 *   audit retention (its own retention setting); `key_id`/`user_id` are '' for calls without a key
 *   (a session) or without a user (authentication disabled), so the primary key has no nulls.
 * - `limit_counters`: the shared state of the limiters, one number per subject (a rate limit's
 *   theoretical arrival time, a budget's tokens used in its period), forgotten after `expires_at`.
 * - `limit_slots`: requests in flight under a concurrency limit, one row per request, with an expiry
 *   so a process that died does not hold its slots forever.
 */
import type { Migration } from './index.js';

export const usageAndLimits: Migration = {
  version: 30,
  name: '030-usage-and-limits',
  sql: `
ALTER TABLE api_keys ADD COLUMN limits TEXT;
ALTER TABLE users ADD COLUMN limits TEXT;

CREATE TABLE usage_totals (
  hour_start        INTEGER NOT NULL,
  key_id            TEXT NOT NULL,
  user_id           TEXT NOT NULL,
  model             TEXT NOT NULL,
  calls             INTEGER NOT NULL,
  errors            INTEGER NOT NULL,
  prompt_tokens     INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  estimated_calls   INTEGER NOT NULL,
  latency_ms_sum    INTEGER NOT NULL,
  PRIMARY KEY (hour_start, key_id, user_id, model)
) STRICT;
CREATE INDEX usage_totals_user ON usage_totals (user_id, hour_start);
CREATE INDEX usage_totals_key ON usage_totals (key_id, hour_start);

CREATE TABLE limit_counters (
  subject    TEXT PRIMARY KEY,
  value      REAL NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX limit_counters_expiry ON limit_counters (expires_at);

CREATE TABLE limit_slots (
  subject    TEXT NOT NULL,
  holder     TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (subject, holder)
) STRICT;
CREATE INDEX limit_slots_expiry ON limit_slots (expires_at);
`,
  postgres: `
ALTER TABLE api_keys ADD COLUMN limits text;
ALTER TABLE users ADD COLUMN limits text;
-- The limits are cached with the key: a change to them must move the access epoch (004, 015).
DROP TRIGGER api_keys_cache_epoch ON api_keys;
CREATE TRIGGER api_keys_cache_epoch AFTER INSERT OR DELETE OR TRUNCATE
  OR UPDATE OF key_hash, id, user_id, ciphertext, encryption_key_id, name, description, enabled, expires_at, model_permissions, permissions,
    rate_limit_max_failures, rate_limit_window_seconds, rate_limit_ban_seconds, limits
  ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION svc_bump_cache_epoch('access');

CREATE TABLE usage_totals (
  hour_start        bigint NOT NULL,
  key_id            text NOT NULL,
  user_id           text NOT NULL,
  model             text NOT NULL,
  calls             bigint NOT NULL,
  errors            bigint NOT NULL,
  prompt_tokens     bigint NOT NULL,
  completion_tokens bigint NOT NULL,
  estimated_calls   bigint NOT NULL,
  latency_ms_sum    bigint NOT NULL,
  PRIMARY KEY (hour_start, key_id, user_id, model)
);
CREATE INDEX usage_totals_user ON usage_totals (user_id, hour_start);
CREATE INDEX usage_totals_key ON usage_totals (key_id, hour_start);

CREATE TABLE limit_counters (
  subject    text PRIMARY KEY,
  value      double precision NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX limit_counters_expiry ON limit_counters (expires_at);

CREATE TABLE limit_slots (
  subject    text NOT NULL,
  holder     text NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (subject, holder)
);
CREATE INDEX limit_slots_expiry ON limit_slots (expires_at);
`,
};
