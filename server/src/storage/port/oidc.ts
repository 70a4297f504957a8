/** The single sign-on aggregate of the storage port: linked identities, sign-ins in flight, CLI codes. */

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

/** Single sign-on state. States and codes are stored by digest and taken (deleted) when used. */
export interface OidcStore {
  /** The account linked to `(issuer, subject)`, or null. */
  findUserId(issuer: string, subject: string): Promise<string | null>;
  /** Links an account to `(issuer, subject)`; call in the transaction that creates the account. */
  link(issuer: string, subject: string, userId: string, now: number): Promise<void>;
  /** Notes a sign-in of a linked account. */
  touch(issuer: string, subject: string, now: number): Promise<void>;
  /** Stores a sign-in in flight under the digest of its `state` (and forgets expired ones). */
  saveLoginRequest(stateHash: Buffer, request: OidcLoginRequest, now: number): Promise<void>;
  /** Removes and returns the sign-in stored under `stateHash` (a state is good once); null when none or expired. */
  takeLoginRequest(stateHash: Buffer, now: number): Promise<OidcLoginRequest | null>;
  /** Stores a CLI's one-time code under its digest (and forgets expired ones). */
  saveCliCode(codeHash: Buffer, code: OidcCliCode, now: number): Promise<void>;
  /** Removes and returns the CLI code stored under `codeHash` (used once); null when none or expired. */
  takeCliCode(codeHash: Buffer, now: number): Promise<OidcCliCode | null>;
}
