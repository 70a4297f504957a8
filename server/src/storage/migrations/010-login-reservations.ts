/**
 * Migration 010: logins in flight. A login attempt reserves its place in the failure counters of
 * its client IP and its account before the password hash runs, so a burst of concurrent attempts
 * cannot all be evaluated (issue 14, H2). `in_flight` counts reserved attempts not yet settled;
 * `in_flight_since` is when the last one was reserved, so a count left behind by a crashed process
 * is forgotten after a minute.
 */
import type { Migration } from './index.js';

export const loginReservations: Migration = {
  version: 10,
  name: '010-login-reservations',
  sql: `
ALTER TABLE brute_force_entries ADD COLUMN in_flight INTEGER NOT NULL DEFAULT 0;
ALTER TABLE brute_force_entries ADD COLUMN in_flight_since INTEGER;
`,
  postgres: `
ALTER TABLE brute_force_entries ADD COLUMN in_flight integer NOT NULL DEFAULT 0;
ALTER TABLE brute_force_entries ADD COLUMN in_flight_since bigint;
`,
};
