/**
 * Migration 040: `secret_fingerprints`, one keyed, one-way fingerprint per secret of the deployment
 * (`jwt_signing`, `encryption`), recorded by the first process that starts on the database. A host
 * whose secret's fingerprint differs stops at start-up instead of issuing tokens other hosts reject
 * or encrypting keys no other host can reveal (issue 12; `app/secret-fingerprints.ts`). The
 * fingerprint is HMAC-SHA-256 of a fixed label under the secret: it proves which secret a host holds
 * and reveals nothing usable about it. Bookkeeping of each database: `svc-migrate-storage` does not
 * copy it (the target records the secrets it is first started with).
 */
import type { Migration } from './index.js';

export const secretFingerprints: Migration = {
  version: 40,
  name: '040-secret-fingerprints',
  sql: `
CREATE TABLE secret_fingerprints (
  name        TEXT PRIMARY KEY CHECK (name IN ('jwt_signing', 'encryption')),
  fingerprint TEXT NOT NULL,
  recorded_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
`,
  postgres: `
CREATE TABLE secret_fingerprints (
  name        text PRIMARY KEY CHECK (name IN ('jwt_signing', 'encryption')),
  fingerprint text NOT NULL,
  recorded_at bigint NOT NULL
);
`,
};
