/**
 * Single sign-on state on SQLite. The only module that writes SQL for `oidc_identities`,
 * `oidc_login_requests` and `oidc_cli_codes` (migration 020).
 */
import type { OidcCliCode, OidcLoginRequest, OidcStore } from '../port/oidc.js';
import { liveCliCode, liveLoginRequest, type OidcCliCodeRow, type OidcLoginRequestRow } from '../rows.js';
import { attempt } from './errors.js';
import { statement, type Connections } from './statements.js';

/** Reads and writes single sign-on state. */
export class SqliteOidcStore implements OidcStore {
  readonly #c: Connections;

  constructor(connections: Connections) {
    this.#c = connections;
  }

  findUserId(issuer: string, subject: string): Promise<string | null> {
    return attempt(
      () => statement<[string, string], { user_id: string }>(this.#c.read, 'SELECT user_id FROM oidc_identities WHERE issuer = ? AND subject = ?').get(issuer, subject)?.user_id ?? null,
    );
  }

  link(issuer: string, subject: string, userId: string, now: number): Promise<void> {
    return this.#c.gate.write(() => {
      statement(this.#c.write, 'INSERT INTO oidc_identities (issuer, subject, user_id, created_at, last_login_at) VALUES (?, ?, ?, ?, ?)').run(issuer, subject, userId, now, now);
    });
  }

  touch(issuer: string, subject: string, now: number): Promise<void> {
    return this.#c.gate.write(() => {
      statement(this.#c.write, 'UPDATE oidc_identities SET last_login_at = ? WHERE issuer = ? AND subject = ?').run(now, issuer, subject);
    });
  }

  saveLoginRequest(stateHash: Buffer, request: OidcLoginRequest, now: number): Promise<void> {
    return this.#c.gate.write(() => {
      statement(this.#c.write, 'DELETE FROM oidc_login_requests WHERE expires_at <= ?').run(now);
      statement(
        this.#c.write,
        `INSERT INTO oidc_login_requests (state_hash, browser_hash, nonce, code_verifier, cli_redirect_uri, cli_code_challenge, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(stateHash, request.browserHash, request.nonce, request.codeVerifier, request.cliRedirectUri, request.cliCodeChallenge, now, request.expiresAt);
    });
  }

  takeLoginRequest(stateHash: Buffer, now: number): Promise<OidcLoginRequest | null> {
    return this.#c.gate.write(() => {
      return liveLoginRequest(statement<[Buffer], OidcLoginRequestRow>(this.#c.write, 'DELETE FROM oidc_login_requests WHERE state_hash = ? RETURNING *').get(stateHash), now);
    });
  }

  saveCliCode(codeHash: Buffer, code: OidcCliCode, now: number): Promise<void> {
    return this.#c.gate.write(() => {
      statement(this.#c.write, 'DELETE FROM oidc_cli_codes WHERE expires_at <= ?').run(now);
      statement(this.#c.write, 'INSERT INTO oidc_cli_codes (code_hash, user_id, code_challenge, expires_at) VALUES (?, ?, ?, ?)').run(
        codeHash,
        code.userId,
        code.codeChallenge,
        code.expiresAt,
      );
    });
  }

  takeCliCode(codeHash: Buffer, now: number): Promise<OidcCliCode | null> {
    return this.#c.gate.write(() => {
      return liveCliCode(
        statement<[Buffer], OidcCliCodeRow>(this.#c.write, 'DELETE FROM oidc_cli_codes WHERE code_hash = ? RETURNING user_id, code_challenge, expires_at').get(codeHash),
        now,
      );
    });
  }
}
