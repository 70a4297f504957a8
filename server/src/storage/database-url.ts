/**
 * `SVC_DATABASE_URL`: the PostgreSQL database every svc process of one deployment names. Parsed
 * and checked here once, at start-up, so a mistake stops svc with one clear line instead of a
 * failure on the first request; and printed only through {@link redactDatabaseUrl}, which never
 * shows the password.
 *
 * The URL is read as the `pg` ecosystem reads it (`pg-connection-string`): `sslmode` (`disable`,
 * `prefer`, `require`, `verify-ca`, `verify-full`, `no-verify`), `sslrootcert` (the CA file),
 * `sslcert` / `sslkey` (a client certificate), and `uselibpqcompat=true` for libpq's meaning of
 * `require`.
 */
import { accessSync, constants } from 'node:fs';
import { parse } from 'pg-connection-string';

/** A checked `SVC_DATABASE_URL`. */
export interface DatabaseUrl {
  /** The URL as given (holds the password: pass it to the driver, never print it). */
  readonly url: string;
  /** The URL with its password replaced by `***`, for logs and messages. */
  readonly redacted: string;
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string | null;
  /** The `sslmode` given, or null (node-postgres then connects without TLS). */
  readonly sslMode: SslMode | null;
}

/** The `sslmode` values node-postgres understands. */
export type SslMode = 'disable' | 'prefer' | 'require' | 'verify-ca' | 'verify-full' | 'no-verify';
const sslModes: readonly SslMode[] = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'];

/** The parameters that name files svc must be able to read at start-up. */
const fileParameters = ['sslrootcert', 'sslcert', 'sslkey'] as const;
/** Query parameters whose values are secrets. */
const secretParameters = ['password', 'sslpassword'];

/** A `SVC_DATABASE_URL` that cannot be used; the message names the variable and hides the password. */
export class DatabaseUrlError extends Error {
  readonly code = 'invalid_database_url';
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUrlError';
  }
}

/**
 * `text` with every password in it replaced by `***`: the one in `user:password@`, and `password`
 * or `sslpassword` query parameters. Works on malformed text too.
 *
 * @example
 * redactDatabaseUrl('postgres://svc:s3cret@db:5432/svc'); // 'postgres://svc:***@db:5432/svc'
 */
export function redactDatabaseUrl(text: string): string {
  return hideQuerySecrets(hideUserinfoPassword(text));
}

/**
 * The password of `user:password@`. The user information is taken to end at the *last* `@`, so a
 * password holding an unencoded `@`, `/` or `?` is hidden whole (more is hidden rather than less).
 */
function hideUserinfoPassword(text: string): string {
  const scheme = text.indexOf('://');
  const at = text.lastIndexOf('@');
  if (scheme < 0 || at < scheme) return text;
  const colon = text.indexOf(':', scheme + 3);
  if (colon < 0 || colon > at) return text;
  return `${text.slice(0, colon)}:***${text.slice(at)}`;
}

function hideQuerySecrets(text: string): string {
  return text.replace(new RegExp(`([?&](?:${secretParameters.join('|')})=)[^&#]*`, 'gi'), '$1***');
}

/**
 * Checks a `SVC_DATABASE_URL`.
 *
 * @throws DatabaseUrlError with one line saying what is wrong, the URL shown with `***` for its password.
 * @example
 * const database = parseDatabaseUrl(process.env.SVC_DATABASE_URL ?? '');
 * console.log(`svc-local: storage ${database.redacted}`);
 */
export function parseDatabaseUrl(text: string, variable = 'SVC_DATABASE_URL'): DatabaseUrl {
  const redacted = redactDatabaseUrl(text);
  const refuse = (reason: string): DatabaseUrlError => new DatabaseUrlError(`${variable}="${redacted}" is not a PostgreSQL URL: ${reason}`);
  if (!/^postgres(ql)?:\/\//i.test(text)) throw refuse('it must start with postgres:// or postgresql://');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('it is malformed (characters such as @ / ? # in the user name or password must be percent-encoded)');
  }
  if (url.hostname === '' && url.searchParams.get('host') === null) throw refuse('it names no host (postgres://user:password@host:5432/database)');
  const port = url.port === '' ? 5432 : Number(url.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw refuse(`port ${url.port} is out of range`);
  const database = decodeURIComponent(url.pathname.slice(1));
  if (database === '' || database.includes('/')) throw refuse('it names no database (…:5432/database)');
  const sslMode = url.searchParams.get('sslmode');
  if (sslMode !== null && !(sslModes as readonly string[]).includes(sslMode)) throw refuse(`sslmode=${sslMode} is not one of ${sslModes.join(', ')}`);
  for (const parameter of fileParameters) {
    const file = url.searchParams.get(parameter);
    if (file === null) continue;
    try {
      accessSync(file, constants.R_OK);
    } catch (error) {
      throw refuse(`${parameter}=${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  try {
    parse(text);
  } catch (error) {
    throw refuse((error as Error).message);
  }
  return {
    url: text,
    redacted,
    host: decodeURIComponent(url.hostname.replace(/^\[(.+)\]$/, '$1')) || (url.searchParams.get('host') ?? ''),
    port,
    database,
    user: url.username === '' ? null : decodeURIComponent(url.username),
    sslMode: sslMode as SslMode | null,
  };
}
