/**
 * Single sign-on state on PostgreSQL (migration 020). Taking a state or a code is one
 * `DELETE … RETURNING`, so two hosts racing for the same one cannot both get it.
 */
import type { OidcCliCode, OidcLoginRequest, OidcStore } from '../port/oidc.js';
import { liveCliCode, liveLoginRequest, type OidcCliCodeRow, type OidcLoginRequestRow } from '../rows.js';
import type { Executor } from './executor.js';

/** {@link OidcStore} on PostgreSQL. */
export class PostgresOidcStore implements OidcStore {
  readonly #sql: Executor;

  constructor(sql: Executor) {
    this.#sql = sql;
  }

  async findUserId(issuer: string, subject: string): Promise<string | null> {
    return (await this.#sql.first<{ user_id: string }>('SELECT user_id FROM oidc_identities WHERE issuer = $1 AND subject = $2', [issuer, subject], { lookup: true }))?.user_id ?? null;
  }

  async link(issuer: string, subject: string, userId: string, now: number): Promise<void> {
    await this.#sql.run('INSERT INTO oidc_identities (issuer, subject, user_id, created_at, last_login_at) VALUES ($1, $2, $3, $4, $4)', [issuer, subject, userId, now], {
      lookup: true,
    });
  }

  async touch(issuer: string, subject: string, now: number): Promise<void> {
    await this.#sql.run('UPDATE oidc_identities SET last_login_at = $1 WHERE issuer = $2 AND subject = $3', [now, issuer, subject], { lookup: true });
  }

  async saveLoginRequest(stateHash: Buffer, request: OidcLoginRequest, now: number): Promise<void> {
    await this.#sql.run('DELETE FROM oidc_login_requests WHERE expires_at <= $1', [now]);
    await this.#sql.run(
      `INSERT INTO oidc_login_requests (state_hash, browser_hash, nonce, code_verifier, cli_redirect_uri, cli_code_challenge, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [stateHash, request.browserHash, request.nonce, request.codeVerifier, request.cliRedirectUri, request.cliCodeChallenge, now, request.expiresAt],
      { lookup: true },
    );
  }

  async takeLoginRequest(stateHash: Buffer, now: number): Promise<OidcLoginRequest | null> {
    const row = await this.#sql.first<OidcLoginRequestRow>(
      'DELETE FROM oidc_login_requests WHERE state_hash = $1 RETURNING browser_hash, nonce, code_verifier, cli_redirect_uri, cli_code_challenge, expires_at',
      [stateHash],
    );
    return liveLoginRequest(row, now);
  }

  async saveCliCode(codeHash: Buffer, code: OidcCliCode, now: number): Promise<void> {
    await this.#sql.run('DELETE FROM oidc_cli_codes WHERE expires_at <= $1', [now]);
    await this.#sql.run('INSERT INTO oidc_cli_codes (code_hash, user_id, code_challenge, expires_at) VALUES ($1, $2, $3, $4)', [
      codeHash,
      code.userId,
      code.codeChallenge,
      code.expiresAt,
    ], { lookup: true });
  }

  async takeCliCode(codeHash: Buffer, now: number): Promise<OidcCliCode | null> {
    const row = await this.#sql.first<OidcCliCodeRow>(
      'DELETE FROM oidc_cli_codes WHERE code_hash = $1 RETURNING user_id, code_challenge, expires_at',
      [codeHash],
    );
    return liveCliCode(row, now);
  }
}
