/**
 * Shared tools of the security-requirement suite: the secrets and the database of a running
 * server (on either backend: the run's, see `@svc/server/testing`'s `database-access.ts`; the
 * SQLite file itself for the SQLite-only tests), and forging JWTs by hand (so a test can sign exactly the header and claims it wants,
 * with the real secret or another one). Helpers that are not about security (polling, assertions,
 * servers) come from `@svc/server/testing`.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encryptionKeyOf, signingSecretOf, withDatabaseAccess, type DatabaseAccess } from '@svc/server/testing';
import Database from 'better-sqlite3';

/** The `{home}/auth` directory of a server. */
export function authDirectory(home: string): string {
  return join(home, 'auth');
}

/** The SQLite file of a server started on `home` with default paths (the SQLite-only tests). */
export function databasePath(home: string): string {
  return join(authDirectory(home), 'auth.db');
}

/** The JWT signing secret the servers of `home` use, exactly as they use it (either backend). */
export function jwtSecret(home: string): Promise<string> {
  return signingSecretOf(home);
}

/** The API-key encryption key the servers of `home` use (either backend). */
export function encryptionKey(home: string): Promise<string> {
  return encryptionKeyOf(home);
}

/** The JWT secret file a SQLite server generated into `home` (the SQLite-only tests of the secret files). */
export function jwtSecretFile(home: string): string {
  return readFileSync(join(authDirectory(home), 'jwt_secret_key'), 'utf8').trim();
}

/** The encryption key file a SQLite server generated into `home`. */
export function encryptionKeyFile(home: string): string {
  return readFileSync(join(authDirectory(home), 'encryption_key'), 'utf8').trim();
}

/**
 * Runs `work` on a fresh connection to the database of the server on `home`, whichever backend
 * the run uses (`@svc/server/testing`'s {@link withDatabaseAccess}), and closes it.
 */
export function withDatabase<T>(home: string, work: (db: DatabaseAccess) => Promise<T>): Promise<T> {
  return withDatabaseAccess(home, work);
}

/**
 * Runs `work` on a fresh better-sqlite3 connection to the SQLite file of the server on `home` and
 * closes it: for the SQLite-only tests (WAL, so it never blocks the server's readers).
 */
export function withSqliteFile<T>(home: string, work: (db: Database.Database) => T, options: { readonly?: boolean } = {}): T {
  const db = new Database(databasePath(home), { fileMustExist: true, readonly: options.readonly ?? false, timeout: 2000 });
  try {
    return work(db);
  } finally {
    db.close();
  }
}

/** How many user rows the database of the server on `home` holds. */
export async function countUsers(home: string): Promise<number> {
  const [count] = await withDatabase(home, (db) => db.column<number | string>('SELECT count(*) FROM users'));
  return Number(count);
}

/** `data` (a string as UTF-8) in unpadded base64url, as JWT parts are encoded. */
export function base64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/** A JWT split into its decoded parts. */
export interface DecodedJwt {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  signature: Buffer;
  signingInput: string;
}

/** Decodes a compact JWT without checking anything. */
export function decodeJwt(token: string): DecodedJwt {
  const [header, payload, signature] = token.split('.');
  if (header === undefined || payload === undefined || signature === undefined) throw new Error(`not a compact JWT: ${token}`);
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>,
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>,
    signature: Buffer.from(signature, 'base64url'),
    signingInput: `${header}.${payload}`,
  };
}

/** HMAC hash per JOSE algorithm name. */
const hmacHashes: Record<string, string> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };

/**
 * Builds a compact JWT from `header` and `payload`, signed with HMAC under `secret` (the secret's
 * UTF-8 bytes, as the server uses its hex text). `hmac` picks the hash; by default the one named
 * by `header.alg` (HS256 when the header names none or a non-HMAC algorithm). `hmac: null` leaves
 * the signature empty (as `alg: none` tokens do).
 */
export function forgeJwt(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  secret: string | Buffer,
  hmac?: 'HS256' | 'HS384' | 'HS512' | null,
): string {
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
  const algorithm = hmac === undefined ? (typeof header['alg'] === 'string' && header['alg'] in hmacHashes ? header['alg'] : 'HS256') : hmac;
  if (algorithm === null) return `${signingInput}.`;
  const signature = createHmac(hmacHashes[algorithm] as string, secret).update(signingInput).digest();
  return `${signingInput}.${base64url(signature)}`;
}

/** Returns a copy of `token` with bit 0 of signature byte `index` flipped. */
export function flipSignatureByte(token: string, index: number): string {
  const parts = token.split('.');
  const signature = Buffer.from(parts[2] as string, 'base64url');
  signature[index] = (signature[index] as number) ^ 0x01;
  return `${parts[0]}.${parts[1]}.${base64url(signature)}`;
}
