/**
 * Server configuration: the only module that reads the environment. Everything else receives a
 * typed {@link ServerConfig}. A bad value throws {@link ConfigError} with one line that names the
 * variable, the value and what would be accepted.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import proxyAddr from '@fastify/proxy-addr';
import { allPermissions, type Permission } from './auth/permissions.js';
import { parseUpstreamAllowList } from './models/upstream-policy.js';
import { DatabaseUrlError, parseDatabaseUrl, type DatabaseUrl } from './storage/database-url.js';

/** Where a secret comes from: the environment, or a file generated once on first run. */
export type SecretSource = { kind: 'env'; variable: string; value: string } | { kind: 'file'; path: string };

/** Everything the server needs to know, read once at start-up. */
export interface ServerConfig {
  /** `SVC_HOME`: the service's home directory. @default `~/.svc` */
  home: string;
  /** `SVC_AUTH_ADVANCED`: when false every route is served without credentials. @default true */
  authEnabled: boolean;
  /** `SVC_ACCESS_TOKEN_EXPIRE_MINUTES` in seconds. @default 1800 */
  accessTokenTtlSeconds: number;
  /** Lifetime of one refresh token (the spec fixes 7 days). */
  refreshTokenTtlSeconds: number;
  /** Absolute lifetime of a login session however often it is refreshed. @default 30 days */
  sessionMaxLifetimeSeconds: number;
  /** How long a rotated refresh token may still be presented by a concurrent refresh. @default 10 */
  refreshReuseGraceSeconds: number;
  /** `SVC_PASSWORD_MIN_LENGTH`: minimum password length in code points. @default 15 */
  passwordMinLength: number;
  /** `SVC_AUTH_DB_PATH`: the SQLite file, used when {@link databaseUrl} is null. @default `{home}/auth/auth.db` */
  databasePath: string;
  /**
   * `SVC_DATABASE_URL`: the PostgreSQL database every svc process of one deployment names (on any
   * number of hosts); null keeps the embedded SQLite file. Checked at start-up (docs/deployment.md).
   * `SVC_DATABASE_PASSWORD_FILE` names a file holding its password (a compose or Kubernetes secret),
   * for a URL given without one.
   */
  databaseUrl: DatabaseUrl | null;
  /** `SVC_DATABASE_POOL_MAX`: PostgreSQL connections per process. @default 10 */
  databasePoolMax: number;
  /** `SVC_AUTH_JWT_SECRET_KEY` (or the file `SVC_AUTH_JWT_SECRET_KEY_FILE` names), else `{home}/auth/jwt_secret_key`. */
  jwtSecret: SecretSource;
  /** `SVC_AUTH_ENCRYPTION_KEY` (or the file `SVC_AUTH_ENCRYPTION_KEY_FILE` names), else `{home}/auth/encryption_key`. */
  encryptionKey: SecretSource;
  /** `{home}/cache`: cached model files (`/v1/cache/models`). */
  cacheDirectory: string;
  /** `{home}/virtualenv`: per-model virtual environments (`/v1/virtualenvs`). */
  virtualenvDirectory: string;
  /**
   * `SVC_UPSTREAM_TIMEOUT_SECONDS` in milliseconds: how long an upstream model server may take to
   * start answering, and to send the next chunk of a stream. @default 300000
   */
  upstreamTimeoutMs: number;
  /** The web UI build served at `/`. */
  frontend: FrontendConfig;
  /**
   * `SVC_TRUSTED_PROXIES`: the CIDRs (or addresses) of reverse proxies whose `X-Forwarded-For` /
   * `X-Real-IP` name the client. Empty: the peer address is the client. @default []
   */
  trustedProxies: string[];
  /**
   * `SVC_CORS_ORIGINS`: the exact origins (`https://app.example.com`) whose browser scripts may call
   * the API, or `['*']` for any origin without credentials. Empty: no CORS headers. @default []
   */
  corsOrigins: string[];
  /**
   * `SVC_UPSTREAM_ALLOWED`: the host names, IP addresses and CIDRs upstream model servers may be
   * at. Null (unset): every address except link-local, metadata and other special ones. @default null
   */
  upstreamAllowed: string[] | null;
  /** `SVC_AUDIT_RETENTION_DAYS`: audit records older than this are pruned. @default 90 */
  auditRetentionDays: number;
  /** `SVC_USAGE_RETENTION_DAYS`: hourly usage totals older than this are deleted. @default 400 */
  usageRetentionDays: number;
  /** Single sign-on through an OpenID provider (`SVC_OIDC_*`); null when `SVC_OIDC_ISSUER` is unset. */
  oidc: OidcConfig | null;
  /** Things worth one line in the log at start-up, e.g. a removed variable that is still set. */
  warnings: string[];
}

/** Single sign-on with OpenID Connect: the provider, this client, and what its claims grant. */
export interface OidcConfig {
  /** `SVC_OIDC_ISSUER`: the provider's issuer URL; its discovery document is `{issuer}/.well-known/openid-configuration`. */
  issuer: string;
  /** `SVC_OIDC_CLIENT_ID`. */
  clientId: string;
  /** `SVC_OIDC_CLIENT_SECRET`; null for a public client (PKCE alone). */
  clientSecret: string | null;
  /** `SVC_OIDC_SCOPES`, space-separated, always holding `openid`. @default openid profile email */
  scopes: string[];
  /** `SVC_OIDC_REDIRECT_BASE_URL`: the URL users reach svc at; the callback is `{base}/v1/auth/oidc/callback`. */
  redirectBaseUrl: string;
  /** `SVC_OIDC_USERNAME_CLAIM`: the ID token claim that names the svc account. @default preferred_username */
  usernameClaim: string;
  /** `SVC_OIDC_GROUPS_CLAIM`: the claim listing groups or roles; a dotted path reaches nested claims (`realm_access.roles`). @default groups */
  groupsClaim: string;
  /** `SVC_OIDC_GROUP_PERMISSIONS` (JSON) or `SVC_OIDC_GROUP_PERMISSIONS_FILE`: group → svc permissions. @default {} */
  groupPermissions: Readonly<Record<string, readonly Permission[]>>;
  /** `SVC_OIDC_DISPLAY_NAME`: the provider's name on the "Sign in with …" button. @default the issuer's host */
  displayName: string;
}

/** Where the static web UI comes from. */
export interface FrontendConfig {
  /** The directory holding `index.html` and its assets. */
  directory: string;
  /** True when `SVC_FRONTEND_DIST_DIR` chose it (it was then checked to exist and hold files). */
  custom: boolean;
}

/** The web UI build bundled with the server (`web/dist` in this repository). */
export const BUNDLED_FRONTEND_DIRECTORY = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** A configuration value that stops start-up; its message is one readable line. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const DAY_SECONDS = 24 * 60 * 60;
/** The lowest minimum password length the service accepts (NIST SP 800-63B). */
export const PASSWORD_MIN_LENGTH_FLOOR = 8;
/** The longest password accepted (also the contract's `maxLength`): a bound against hashing abuse. */
export const PASSWORD_MAX_LENGTH = 1024;
/** The strength every secret must reach. */
export const SECRET_MIN_BITS = 256;

/**
 * A conservative estimate of a secret's strength: 4 bits per character when it is all hex digits,
 * else 6 (base64 or text). 64 hex or 43 base64 characters reach 256 bits.
 */
export function secretStrengthBits(secret: string): number {
  return secret.length * (/^[0-9a-fA-F]+$/.test(secret) ? 4 : 6);
}

/** What a weak secret is told to do. */
export const SECRET_ADVICE = 'use at least 256 random bits: 64 hex or 43 base64 characters, e.g. the output of: openssl rand -hex 32';

/** The environment variables, as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Reads the configuration from `env`.
 *
 * @throws {ConfigError} when a variable holds a value that cannot be used.
 * @example
 * const config = loadConfig(process.env);
 */
export function loadConfig(env: Environment = process.env): ServerConfig {
  const home = resolve(nonEmpty(env, 'SVC_HOME') ?? join(homedir(), '.svc'));
  const authDirectory = join(home, 'auth');
  return {
    home,
    authEnabled: parseSwitch(env, 'SVC_AUTH_ADVANCED'),
    accessTokenTtlSeconds: parsePositiveInteger(env, 'SVC_ACCESS_TOKEN_EXPIRE_MINUTES', 30, 60 * 24 * 365) * 60,
    refreshTokenTtlSeconds: 7 * DAY_SECONDS,
    sessionMaxLifetimeSeconds: 30 * DAY_SECONDS,
    refreshReuseGraceSeconds: 10,
    passwordMinLength: parsePasswordMinLength(env),
    databasePath: resolve(nonEmpty(env, 'SVC_AUTH_DB_PATH') ?? join(authDirectory, 'auth.db')),
    databaseUrl: parseDatabaseUrlVariable(env),
    databasePoolMax: parsePositiveInteger(env, 'SVC_DATABASE_POOL_MAX', 10, 1000),
    jwtSecret: secretSource(env, 'SVC_AUTH_JWT_SECRET_KEY', join(authDirectory, 'jwt_secret_key')),
    encryptionKey: secretSource(env, 'SVC_AUTH_ENCRYPTION_KEY', join(authDirectory, 'encryption_key')),
    cacheDirectory: join(home, 'cache'),
    virtualenvDirectory: join(home, 'virtualenv'),
    upstreamTimeoutMs: parsePositiveInteger(env, 'SVC_UPSTREAM_TIMEOUT_SECONDS', 300, 24 * 60 * 60) * 1000,
    frontend: frontendConfig(env),
    trustedProxies: parseTrustedProxies(env),
    corsOrigins: parseCorsOrigins(env),
    upstreamAllowed: parseUpstreamAllowed(env),
    auditRetentionDays: parsePositiveInteger(env, 'SVC_AUDIT_RETENTION_DAYS', 90, 36500),
    usageRetentionDays: parsePositiveInteger(env, 'SVC_USAGE_RETENTION_DAYS', 400, 36500),
    oidc: oidcConfig(env),
    warnings: removedVariableWarnings(env),
  };
}

function frontendConfig(env: Environment): FrontendConfig {
  const name = 'SVC_FRONTEND_DIST_DIR';
  const value = nonEmpty(env, name);
  if (value === undefined) return { directory: BUNDLED_FRONTEND_DIRECTORY, custom: false };
  const directory = resolve(value);
  let entries: string[];
  try {
    if (!statSync(directory).isDirectory()) throw new ConfigError(`${name}=${JSON.stringify(value)} is not a directory: point it at a frontend build`);
    entries = readdirSync(directory);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${name}=${JSON.stringify(value)} does not exist or cannot be read: point it at a frontend build`);
  }
  if (entries.length === 0) throw new ConfigError(`${name}=${JSON.stringify(value)} is an empty directory: point it at a frontend build holding index.html`);
  if (!entries.includes('index.html')) throw new ConfigError(`${name}=${JSON.stringify(value)} holds no index.html: point it at a frontend build`);
  return { directory, custom: true };
}

function removedVariableWarnings(env: Environment): string[] {
  return nonEmpty(env, 'SVC_FRONTEND_ENDPOINT') === undefined
    ? []
    : ['SVC_FRONTEND_ENDPOINT was removed in release 3.0 and is ignored; to serve a custom frontend build, set SVC_FRONTEND_DIST_DIR'];
}

function nonEmpty(env: Environment, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function parseSwitch(env: Environment, name: string): boolean {
  const value = nonEmpty(env, name);
  if (value === undefined) return true;
  const lower = value.toLowerCase();
  if (['1', 'true', 'yes'].includes(lower)) return true;
  if (['0', 'false', 'no'].includes(lower)) return false;
  throw new ConfigError(`${name}=${JSON.stringify(value)} is not a switch: use 1, true or yes to enable, 0, false or no to disable`);
}

function parsePositiveInteger(env: Environment, name: string, fallback: number, max: number): number {
  const value = nonEmpty(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new ConfigError(`${name}=${JSON.stringify(value)} must be a whole number from 1 to ${max}`);
  }
  return Number(value);
}

/** `SVC_DATABASE_URL`, checked; a malformed URL stops start-up with one line that hides its password. */
function parseDatabaseUrlVariable(env: Environment): DatabaseUrl | null {
  const value = nonEmpty(env, 'SVC_DATABASE_URL');
  const passwordFile = nonEmpty(env, 'SVC_DATABASE_PASSWORD_FILE');
  if (value === undefined) {
    if (passwordFile !== undefined) throw new ConfigError('SVC_DATABASE_PASSWORD_FILE is set but SVC_DATABASE_URL is not: set the URL (without its password) too, or unset SVC_DATABASE_PASSWORD_FILE');
    return null;
  }
  try {
    if (passwordFile === undefined) return parseDatabaseUrl(value);
    return parseDatabaseUrl(withPasswordFromFile(value, passwordFile));
  } catch (error) {
    if (error instanceof DatabaseUrlError) throw new ConfigError(error.message);
    throw error;
  }
}

/** `url` with the password read from `file` (`SVC_DATABASE_PASSWORD_FILE`) put in its user information. */
function withPasswordFromFile(value: string, file: string): string {
  const name = 'SVC_DATABASE_PASSWORD_FILE';
  const password = readSecretVariableFile(name, file).replace(/\r?\n$/, '');
  if (password === '') throw new ConfigError(`${name}=${JSON.stringify(file)} is empty: put the database password in it`);
  // Checked first so that a malformed URL is reported as such, its password hidden.
  const parsed = parseDatabaseUrl(value);
  const url = new URL(parsed.url);
  if (url.password !== '' || url.searchParams.has('password')) {
    throw new ConfigError(`SVC_DATABASE_URL="${parsed.redacted}" holds a password and ${name} is set too: keep one`);
  }
  if (url.username === '') throw new ConfigError(`SVC_DATABASE_URL="${parsed.redacted}" names no user for the password in ${name}: use postgres://user@host:5432/database`);
  url.password = encodeURIComponent(password);
  return url.href;
}

/** The text of the file a `*_FILE` variable names; one line naming the variable when it cannot be read. */
function readSecretVariableFile(name: string, file: string): string {
  try {
    return readFileSync(resolve(file), 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`${name}=${JSON.stringify(file)} cannot be read (${reason}): point it at a file svc's user can read, such as a compose secret under /run/secrets`);
  }
}

function parsePasswordMinLength(env: Environment): number {
  const name = 'SVC_PASSWORD_MIN_LENGTH';
  const value = nonEmpty(env, name);
  if (value === undefined) return 15;
  const maximum = 64;
  if (!/^\d+$/.test(value) || Number(value) < PASSWORD_MIN_LENGTH_FLOOR || Number(value) > maximum) {
    throw new ConfigError(`${name}=${JSON.stringify(value)} must be a whole number from ${PASSWORD_MIN_LENGTH_FLOOR} to ${maximum}`);
  }
  return Number(value);
}

/**
 * A secret from `variable`, or from the file `{variable}_FILE` names (a compose or Kubernetes
 * secret; surrounding white space ignored), else the file generated under `SVC_HOME`.
 */
function secretSource(env: Environment, variable: string, path: string): SecretSource {
  const fileVariable = `${variable}_FILE`;
  const file = nonEmpty(env, fileVariable);
  let value = nonEmpty(env, variable);
  if (file !== undefined) {
    if (value !== undefined) throw new ConfigError(`${variable} and ${fileVariable} are both set: keep one`);
    value = readSecretVariableFile(fileVariable, file).trim();
    if (value === '') throw new ConfigError(`${fileVariable}=${JSON.stringify(file)} is empty: ${SECRET_ADVICE}`);
  }
  if (value === undefined) return { kind: 'file', path };
  const source = file === undefined ? variable : fileVariable;
  if (secretStrengthBits(value) < SECRET_MIN_BITS) {
    throw new ConfigError(`${source} is too short: ${SECRET_ADVICE}`);
  }
  return { kind: 'env', variable: source, value };
}

function parseUpstreamAllowed(env: Environment): string[] | null {
  const name = 'SVC_UPSTREAM_ALLOWED';
  const value = nonEmpty(env, name);
  if (value === undefined) return null;
  const entries = value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  try {
    parseUpstreamAllowList(entries);
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}; use a comma-separated list such as vllm.internal,10.0.0.0/8,127.0.0.1`);
  }
  return entries;
}

function parseTrustedProxies(env: Environment): string[] {
  const name = 'SVC_TRUSTED_PROXIES';
  const value = nonEmpty(env, name);
  if (value === undefined) return [];
  const entries = value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const entry of entries) {
    try {
      proxyAddr.compile(entry);
    } catch {
      throw new ConfigError(`${name}=${JSON.stringify(value)}: ${JSON.stringify(entry)} is not an IP address or CIDR; use a comma-separated list such as 10.0.0.0/8,192.168.1.5`);
    }
  }
  return entries;
}

const oidcVariables = [
  'SVC_OIDC_CLIENT_ID',
  'SVC_OIDC_CLIENT_SECRET',
  'SVC_OIDC_SCOPES',
  'SVC_OIDC_REDIRECT_BASE_URL',
  'SVC_OIDC_USERNAME_CLAIM',
  'SVC_OIDC_GROUPS_CLAIM',
  'SVC_OIDC_GROUP_PERMISSIONS',
  'SVC_OIDC_GROUP_PERMISSIONS_FILE',
  'SVC_OIDC_DISPLAY_NAME',
];
const claimName = /^[A-Za-z0-9_:\-]+(\.[A-Za-z0-9_:\-]+)*$/;

function oidcConfig(env: Environment): OidcConfig | null {
  const issuerValue = nonEmpty(env, 'SVC_OIDC_ISSUER');
  if (issuerValue === undefined) {
    const stray = oidcVariables.find((name) => nonEmpty(env, name) !== undefined);
    if (stray !== undefined) throw new ConfigError(`${stray} is set but SVC_OIDC_ISSUER is not: set the provider's issuer URL to turn single sign-on on, or unset ${stray}`);
    return null;
  }
  const issuer = parseWebUrl('SVC_OIDC_ISSUER', issuerValue, 'the issuer URL of the provider, e.g. https://keycloak.example.com/realms/acme');
  const clientId = nonEmpty(env, 'SVC_OIDC_CLIENT_ID');
  if (clientId === undefined) throw new ConfigError('SVC_OIDC_CLIENT_ID is required when SVC_OIDC_ISSUER is set: use the client id registered at the provider');
  const baseValue = nonEmpty(env, 'SVC_OIDC_REDIRECT_BASE_URL');
  if (baseValue === undefined) {
    throw new ConfigError('SVC_OIDC_REDIRECT_BASE_URL is required when SVC_OIDC_ISSUER is set: use the URL users open svc at, e.g. https://svc.example.com');
  }
  const redirectBaseUrl = parseWebUrl('SVC_OIDC_REDIRECT_BASE_URL', baseValue, 'the URL users open svc at, e.g. https://svc.example.com');
  const scopes = (nonEmpty(env, 'SVC_OIDC_SCOPES') ?? 'openid profile email').split(/[\s,]+/).filter((scope) => scope !== '');
  if (!scopes.includes('openid')) throw new ConfigError(`SVC_OIDC_SCOPES=${JSON.stringify(env['SVC_OIDC_SCOPES'])} must include openid, e.g. "openid profile email groups"`);
  const usernameClaim = nonEmpty(env, 'SVC_OIDC_USERNAME_CLAIM') ?? 'preferred_username';
  if (!claimName.test(usernameClaim) || usernameClaim.includes('.')) {
    throw new ConfigError(`SVC_OIDC_USERNAME_CLAIM=${JSON.stringify(usernameClaim)} is not a claim name: use preferred_username, email or sub`);
  }
  const groupsClaim = nonEmpty(env, 'SVC_OIDC_GROUPS_CLAIM') ?? 'groups';
  if (!claimName.test(groupsClaim)) throw new ConfigError(`SVC_OIDC_GROUPS_CLAIM=${JSON.stringify(groupsClaim)} is not a claim name: use e.g. groups, roles or realm_access.roles`);
  return {
    issuer,
    clientId,
    clientSecret: nonEmpty(env, 'SVC_OIDC_CLIENT_SECRET') ?? null,
    scopes: [...new Set(scopes)],
    redirectBaseUrl,
    usernameClaim,
    groupsClaim,
    groupPermissions: parseGroupPermissions(env),
    displayName: nonEmpty(env, 'SVC_OIDC_DISPLAY_NAME') ?? new URL(issuer).host,
  };
}

/** An absolute https URL (http only for a loopback host), without query or fragment and without a trailing slash. */
function parseWebUrl(name: string, value: string, advice: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name}=${JSON.stringify(value)} is not a URL: use ${advice}`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new ConfigError(`${name}=${JSON.stringify(value)} must use https (plain http only for localhost): use ${advice}`);
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError(`${name}=${JSON.stringify(value)} must not carry a query, fragment or credentials: use ${advice}`);
  }
  return url.href.replace(/\/+$/, '');
}

function parseGroupPermissions(env: Environment): Record<string, Permission[]> {
  const inline = nonEmpty(env, 'SVC_OIDC_GROUP_PERMISSIONS');
  const file = nonEmpty(env, 'SVC_OIDC_GROUP_PERMISSIONS_FILE');
  if (inline !== undefined && file !== undefined) {
    throw new ConfigError('SVC_OIDC_GROUP_PERMISSIONS and SVC_OIDC_GROUP_PERMISSIONS_FILE are both set: keep one');
  }
  let name = 'SVC_OIDC_GROUP_PERMISSIONS';
  let text = inline;
  if (file !== undefined) {
    name = 'SVC_OIDC_GROUP_PERMISSIONS_FILE';
    try {
      text = readFileSync(resolve(file), 'utf8');
    } catch {
      throw new ConfigError(`${name}=${JSON.stringify(file)} cannot be read: point it at a JSON file mapping groups to permissions`);
    }
  }
  if (text === undefined) return {};
  const example = `e.g. {"ml-admins":["admin"],"ml-users":["models:read","keys:create"]}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`${name} is not valid JSON: map each group to a list of permissions, ${example}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`${name} must be a JSON object mapping each group to a list of permissions, ${example}`);
  }
  const known = new Set<string>(allPermissions);
  const mapping: Record<string, Permission[]> = Object.create(null) as Record<string, Permission[]>;
  for (const [group, permissions] of Object.entries(parsed)) {
    if (!Array.isArray(permissions) || permissions.some((permission) => typeof permission !== 'string')) {
      throw new ConfigError(`${name}: group ${JSON.stringify(group)} must map to a list of permission names, ${example}`);
    }
    const unknown = (permissions as string[]).find((permission) => !known.has(permission));
    if (unknown !== undefined) {
      throw new ConfigError(`${name}: group ${JSON.stringify(group)} names ${JSON.stringify(unknown)}, which is not a permission (known: ${allPermissions.join(', ')})`);
    }
    mapping[group] = [...new Set(permissions as Permission[])];
  }
  return mapping;
}

function parseCorsOrigins(env: Environment): string[] {
  const name = 'SVC_CORS_ORIGINS';
  const value = nonEmpty(env, name);
  if (value === undefined) return [];
  const entries = [...new Set(value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''))];
  if (entries.includes('*')) {
    if (entries.length > 1) throw new ConfigError(`${name}=${JSON.stringify(value)}: "*" (any origin) cannot be combined with listed origins; use either * or a list of origins`);
    return entries;
  }
  for (const entry of entries) {
    let origin: string | undefined;
    try {
      const url = new URL(entry);
      origin = ['http:', 'https:'].includes(url.protocol) && !entry.includes('*') ? url.origin : undefined;
    } catch {
      origin = undefined;
    }
    if (origin !== entry) {
      throw new ConfigError(
        `${name}=${JSON.stringify(value)}: ${JSON.stringify(entry)} is not an origin; use exact origins (scheme://host[:port], no path or trailing slash) separated by commas, such as https://app.example.com,http://localhost:5173`,
      );
    }
  }
  return entries;
}
