/**
 * Server configuration: the only module that reads the environment. Everything else receives a
 * typed {@link ServerConfig}. A bad value throws {@link ConfigError} with one line that names the
 * variable, the value and what would be accepted.
 */
import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import proxyAddr from '@fastify/proxy-addr';
import { parseUpstreamAllowList } from './models/upstream-policy.js';

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
  /** `SVC_AUTH_DB_PATH`. @default `{home}/auth/auth.db` */
  databasePath: string;
  /** `SVC_AUTH_JWT_SECRET_KEY`, else `{home}/auth/jwt_secret_key`. */
  jwtSecret: SecretSource;
  /** `SVC_AUTH_ENCRYPTION_KEY`, else `{home}/auth/encryption_key`. */
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
   * `SVC_UPSTREAM_ALLOWED`: the host names, IP addresses and CIDRs upstream model servers may be
   * at. Null (unset): every address except link-local, metadata and other special ones. @default null
   */
  upstreamAllowed: string[] | null;
  /** `SVC_AUDIT_RETENTION_DAYS`: audit records older than this are pruned. @default 90 */
  auditRetentionDays: number;
  /** Things worth one line in the log at start-up, e.g. a removed variable that is still set. */
  warnings: string[];
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
    jwtSecret: secretSource(env, 'SVC_AUTH_JWT_SECRET_KEY', join(authDirectory, 'jwt_secret_key')),
    encryptionKey: secretSource(env, 'SVC_AUTH_ENCRYPTION_KEY', join(authDirectory, 'encryption_key')),
    cacheDirectory: join(home, 'cache'),
    virtualenvDirectory: join(home, 'virtualenv'),
    upstreamTimeoutMs: parsePositiveInteger(env, 'SVC_UPSTREAM_TIMEOUT_SECONDS', 300, 24 * 60 * 60) * 1000,
    frontend: frontendConfig(env),
    trustedProxies: parseTrustedProxies(env),
    upstreamAllowed: parseUpstreamAllowed(env),
    auditRetentionDays: parsePositiveInteger(env, 'SVC_AUDIT_RETENTION_DAYS', 90, 36500),
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

function secretSource(env: Environment, variable: string, path: string): SecretSource {
  const value = nonEmpty(env, variable);
  if (value === undefined) return { kind: 'file', path };
  if (secretStrengthBits(value) < SECRET_MIN_BITS) {
    throw new ConfigError(`${variable} is too short: ${SECRET_ADVICE}`);
  }
  return { kind: 'env', variable, value };
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
