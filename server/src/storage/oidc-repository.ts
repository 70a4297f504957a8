/**
 * Single sign-on state: the accounts linked to a provider's subject, the sign-ins in flight and the
 * one-time codes of CLI sign-ins. The only module that writes SQL for `oidc_identities`,
 * `oidc_login_requests` and `oidc_cli_codes` (migration 020).
 */
import type { ChangeTracker } from './change-tracker.js';
import type { Database } from './database.js';

/** A sign-in between the redirect to the provider and its callback. */
export interface OidcLoginRequest {
  /** SHA-256 of the browser's binding cookie (web sign-ins), null for CLI sign-ins. */
  browserHash: Buffer | null;
  nonce: string;
  codeVerifier: string;
  /** The CLI's loopback address and PKCE challenge (CLI sign-ins), else null. */
  cliRedirectUri: string | null;
  cliCodeChallenge: string | null;
  expiresAt: number;
}

/** A CLI's one-time code as stored. */
export interface OidcCliCode {
  userId: string;
  codeChallenge: string;
  expiresAt: number;
}

interface LoginRequestRow {
  browser_hash: Buffer | null;
  nonce: string;
  code_verifier: string;
  cli_redirect_uri: string | null;
  cli_code_challenge: string | null;
  expires_at: number;
}

/** Reads and writes single sign-on state. Linking an identity marks the change tracker (it changes a user's source). */
export class OidcRepository {
  readonly #db: Database;
  readonly #tracker: ChangeTracker;

  constructor(db: Database, tracker: ChangeTracker) {
    this.#db = db;
    this.#tracker = tracker;
  }

  /** The account linked to `(issuer, subject)`, or null. */
  findUserId(issuer: string, subject: string): string | null {
    const row = this.#db
      .prepare<[string, string], { user_id: string }>('SELECT user_id FROM oidc_identities WHERE issuer = ? AND subject = ?')
      .get(issuer, subject);
    return row?.user_id ?? null;
  }

  /** The `(issuer, subject)` an account is linked to, or null for an account of svc's own. */
  findIdentity(userId: string): { issuer: string; subject: string } | null {
    const row = this.#db
      .prepare<[string], { issuer: string; subject: string }>('SELECT issuer, subject FROM oidc_identities WHERE user_id = ?')
      .get(userId);
    return row ?? null;
  }

  /** Links an account to `(issuer, subject)`; call in the transaction that creates the account. */
  link(issuer: string, subject: string, userId: string, now: number): void {
    this.#db
      .prepare('INSERT INTO oidc_identities (issuer, subject, user_id, created_at, last_login_at) VALUES (?, ?, ?, ?, ?)')
      .run(issuer, subject, userId, now, now);
    this.#tracker.markChanged();
  }

  /** Notes a sign-in of a linked account. */
  touch(issuer: string, subject: string, now: number): void {
    this.#db.prepare('UPDATE oidc_identities SET last_login_at = ? WHERE issuer = ? AND subject = ?').run(now, issuer, subject);
  }

  /** Stores a sign-in in flight under the digest of its `state`. */
  saveLoginRequest(stateHash: Buffer, request: OidcLoginRequest, now: number): void {
    this.#db.prepare('DELETE FROM oidc_login_requests WHERE expires_at <= ?').run(now);
    this.#db
      .prepare(
        `INSERT INTO oidc_login_requests (state_hash, browser_hash, nonce, code_verifier, cli_redirect_uri, cli_code_challenge, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(stateHash, request.browserHash, request.nonce, request.codeVerifier, request.cliRedirectUri, request.cliCodeChallenge, now, request.expiresAt);
  }

  /**
   * Removes and returns the sign-in stored under `stateHash`: a state is good for one callback,
   * so a replay finds nothing. Null when there is none or it expired.
   */
  takeLoginRequest(stateHash: Buffer, now: number): OidcLoginRequest | null {
    const row = this.#db
      .prepare<[Buffer], LoginRequestRow>('DELETE FROM oidc_login_requests WHERE state_hash = ? RETURNING *')
      .get(stateHash);
    if (row === undefined || row.expires_at <= now) return null;
    return {
      browserHash: row.browser_hash,
      nonce: row.nonce,
      codeVerifier: row.code_verifier,
      cliRedirectUri: row.cli_redirect_uri,
      cliCodeChallenge: row.cli_code_challenge,
      expiresAt: row.expires_at,
    };
  }

  /** Stores a CLI's one-time code under its digest. */
  saveCliCode(codeHash: Buffer, code: OidcCliCode, now: number): void {
    this.#db.prepare('DELETE FROM oidc_cli_codes WHERE expires_at <= ?').run(now);
    this.#db
      .prepare('INSERT INTO oidc_cli_codes (code_hash, user_id, code_challenge, expires_at) VALUES (?, ?, ?, ?)')
      .run(codeHash, code.userId, code.codeChallenge, code.expiresAt);
  }

  /** Removes and returns the CLI code stored under `codeHash` (used once); null when none or expired. */
  takeCliCode(codeHash: Buffer, now: number): OidcCliCode | null {
    const row = this.#db
      .prepare<[Buffer], { user_id: string; code_challenge: string; expires_at: number }>('DELETE FROM oidc_cli_codes WHERE code_hash = ? RETURNING *')
      .get(codeHash);
    if (row === undefined || row.expires_at <= now) return null;
    return { userId: row.user_id, codeChallenge: row.code_challenge, expiresAt: row.expires_at };
  }
}
