/**
 * Migration 020: single sign-on with OpenID Connect. Which accounts belong to a provider's subject,
 * the sign-ins in flight (`state` → nonce and PKCE verifier) and the one-time codes a CLI exchanges
 * for its tokens. Secrets are stored as SHA-256 only where the server never needs them back.
 *
 * An account linked here reports the source `oidc`: widening the CHECK of `users.source` would mean
 * rebuilding the table, which cascades to every key and session under SQLite's foreign keys.
 */
import type { Migration } from './index.js';

export const oidcSchema: Migration = {
  version: 20,
  name: '020-oidc',
  sql: `
-- One row per account created by a provider: (issuer, subject) names the person for good.
CREATE TABLE oidc_identities (
  issuer        TEXT NOT NULL,
  subject       TEXT NOT NULL,
  user_id       TEXT NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
  created_at    INTEGER NOT NULL,
  last_login_at INTEGER NOT NULL,
  PRIMARY KEY (issuer, subject)
);

-- A sign-in between the redirect to the provider and its callback; used once, then deleted.
CREATE TABLE oidc_login_requests (
  state_hash         BLOB PRIMARY KEY,       -- SHA-256 of the state parameter
  browser_hash       BLOB,                   -- SHA-256 of the browser's binding cookie (web sign-ins)
  nonce              TEXT NOT NULL,
  code_verifier      TEXT NOT NULL,
  cli_redirect_uri   TEXT,                   -- the CLI's loopback address (CLI sign-ins)
  cli_code_challenge TEXT,                   -- the CLI's own PKCE challenge (S256)
  created_at         INTEGER NOT NULL,
  expires_at         INTEGER NOT NULL
);
CREATE INDEX oidc_login_requests_by_expiry ON oidc_login_requests (expires_at);

-- A signed-in CLI's one-time code, redeemed with the verifier of its PKCE challenge.
CREATE TABLE oidc_cli_codes (
  code_hash      BLOB PRIMARY KEY,           -- SHA-256 of the code
  user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_challenge TEXT NOT NULL,
  expires_at     INTEGER NOT NULL
);
CREATE INDEX oidc_cli_codes_by_expiry ON oidc_cli_codes (expires_at);
`,
  postgres: `
CREATE TABLE oidc_identities (
  issuer        text NOT NULL,
  subject       text NOT NULL,
  user_id       text NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
  created_at    bigint NOT NULL,
  last_login_at bigint NOT NULL,
  PRIMARY KEY (issuer, subject)
);
CREATE TABLE oidc_login_requests (
  state_hash         bytea PRIMARY KEY,
  browser_hash       bytea,
  nonce              text NOT NULL,
  code_verifier      text NOT NULL,
  cli_redirect_uri   text,
  cli_code_challenge text,
  created_at         bigint NOT NULL,
  expires_at         bigint NOT NULL
);
CREATE INDEX oidc_login_requests_by_expiry ON oidc_login_requests (expires_at);
CREATE TABLE oidc_cli_codes (
  code_hash      bytea PRIMARY KEY,
  user_id        text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_challenge text NOT NULL,
  expires_at     bigint NOT NULL
);
CREATE INDEX oidc_cli_codes_by_expiry ON oidc_cli_codes (expires_at);
`,
};
