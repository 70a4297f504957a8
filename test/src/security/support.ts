/**
 * Shared tools of the security-requirement suite: reading the secret files and the SQLite file of a
 * running server, and forging JWTs by hand (so a test can sign exactly the header and claims it wants,
 * with the real secret or another one). Helpers that are not about security (polling, assertions,
 * servers) come from `@svc/server/testing`.
 */
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The `{home}/auth` directory of a server. */
export function authDirectory(home: string): string {
  return join(home, 'auth');
}

/** The database file of a server started on `home` with default paths. */
export function databasePath(home: string): string {
  return join(authDirectory(home), 'auth.db');
}

/** The JWT signing secret a server generated into `home`, exactly as the server uses it. */
export function jwtSecret(home: string): string {
  return readFileSync(join(authDirectory(home), 'jwt_secret_key'), 'utf8').trim();
}

/** The API-key encryption key a server generated into `home`. */
export function encryptionKey(home: string): string {
  return readFileSync(join(authDirectory(home), 'encryption_key'), 'utf8').trim();
}

/**
 * Opens a second connection to a server's database (WAL, so it never blocks the server's readers).
 * Close it when done.
 */
export function openDatabase(home: string, options: { readonly?: boolean } = {}): Database.Database {
  return new Database(databasePath(home), { fileMustExist: true, readonly: options.readonly ?? false, timeout: 2000 });
}

/** Runs `work` on a fresh connection to the server's database and closes it. */
export function withDatabase<T>(home: string, work: (db: Database.Database) => T, options: { readonly?: boolean } = {}): T {
  const db = openDatabase(home, options);
  try {
    return work(db);
  } finally {
    db.close();
  }
}

/** The raw bytes of the database file and every companion file (`-wal`, `-shm`, `-journal`) that exists. */
export function rawDatabaseFiles(home: string): { name: string; bytes: Buffer }[] {
  const base = databasePath(home);
  return ['', '-wal', '-shm', '-journal']
    .map((suffix) => base + suffix)
    .filter((path) => existsSync(path))
    .map((path) => ({ name: path, bytes: readFileSync(path) }));
}

/** How many user rows the database of the server on `home` holds (read on a read-only connection). */
export function countUsers(home: string): number {
  return withDatabase(home, (db) => db.prepare('SELECT count(*) FROM users').pluck().get() as number, { readonly: true });
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
