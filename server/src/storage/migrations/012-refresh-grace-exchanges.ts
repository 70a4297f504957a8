/**
 * Migration 012: how many times a rotated refresh token was exchanged again inside the grace
 * window, so the window cannot fork a session into unbounded branches (issue 14, H6).
 */
import type { Migration } from './index.js';

export const refreshGraceExchanges: Migration = {
  version: 12,
  name: '012-refresh-grace-exchanges',
  sql: `
ALTER TABLE refresh_tokens ADD COLUMN grace_exchanges INTEGER NOT NULL DEFAULT 0;
`,
  postgres: `
ALTER TABLE refresh_tokens ADD COLUMN grace_exchanges integer NOT NULL DEFAULT 0;
`,
};
