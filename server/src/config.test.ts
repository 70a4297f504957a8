import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const home = '/tmp/svc-config-test-home';

/** Runs `loadConfig` with a fixed home and `env`, returning the ConfigError it throws. */
function configErrorFor(env: Record<string, string>): ConfigError {
  try {
    loadConfig({ SVC_HOME: home, ...env });
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail(`loadConfig accepted ${JSON.stringify(env)}`);
}

function assertOneLineNaming(error: ConfigError, variable: string): void {
  assert.equal(error.name, 'ConfigError');
  assert.ok(error.message.includes(variable), `message should name ${variable}: ${error.message}`);
  assert.ok(!error.message.includes('\n'), `message should be one line: ${error.message}`);
}

describe('loadConfig: SVC_AUTH_ADVANCED', () => {
  it('enables authentication when unset, empty or 1/true/yes in any case', () => {
    assert.equal(loadConfig({ SVC_HOME: home }).authEnabled, true);
    for (const value of ['', '1', 'true', 'yes', 'TRUE', 'Yes', ' true ']) {
      assert.equal(loadConfig({ SVC_HOME: home, SVC_AUTH_ADVANCED: value }).authEnabled, true, `value ${JSON.stringify(value)}`);
    }
  });

  it('disables authentication for 0/false/no in any case', () => {
    for (const value of ['0', 'false', 'no', 'No', 'FALSE']) {
      assert.equal(loadConfig({ SVC_HOME: home, SVC_AUTH_ADVANCED: value }).authEnabled, false, `value ${value}`);
    }
  });

  it('refuses any other value with one line naming the variable', () => {
    for (const value of ['on', 'off', '2', 'enabled', 'ture']) {
      const error = configErrorFor({ SVC_AUTH_ADVANCED: value });
      assertOneLineNaming(error, 'SVC_AUTH_ADVANCED');
      assert.ok(error.message.includes(value));
    }
  });
});

describe('loadConfig: SVC_ACCESS_TOKEN_EXPIRE_MINUTES', () => {
  it('defaults to 30 minutes, given in seconds', () => {
    assert.equal(loadConfig({ SVC_HOME: home }).accessTokenTtlSeconds, 1800);
  });

  it('accepts a whole number of minutes', () => {
    assert.equal(loadConfig({ SVC_HOME: home, SVC_ACCESS_TOKEN_EXPIRE_MINUTES: '1' }).accessTokenTtlSeconds, 60);
    assert.equal(loadConfig({ SVC_HOME: home, SVC_ACCESS_TOKEN_EXPIRE_MINUTES: '90' }).accessTokenTtlSeconds, 5400);
  });

  it('refuses zero, negative, fractional and non-numeric values', () => {
    for (const value of ['0', '-1', '1.5', 'abc', '30m', '1e3']) {
      assertOneLineNaming(configErrorFor({ SVC_ACCESS_TOKEN_EXPIRE_MINUTES: value }), 'SVC_ACCESS_TOKEN_EXPIRE_MINUTES');
    }
  });
});

describe('loadConfig: SVC_PASSWORD_MIN_LENGTH', () => {
  it('defaults to 15', () => {
    assert.equal(loadConfig({ SVC_HOME: home }).passwordMinLength, 15);
  });

  it('accepts 8 through 64', () => {
    for (const value of [8, 15, 64]) {
      assert.equal(loadConfig({ SVC_HOME: home, SVC_PASSWORD_MIN_LENGTH: String(value) }).passwordMinLength, value);
    }
  });

  it('refuses values below 8, above 64 or not whole numbers', () => {
    for (const value of ['7', '0', '65', '-8', '10.5', 'twelve']) {
      assertOneLineNaming(configErrorFor({ SVC_PASSWORD_MIN_LENGTH: value }), 'SVC_PASSWORD_MIN_LENGTH');
    }
  });
});

describe('loadConfig: paths and secrets', () => {
  it('puts the database and both secret files under {SVC_HOME}/auth by default', () => {
    const config = loadConfig({ SVC_HOME: home });
    assert.equal(config.home, resolve(home));
    assert.equal(config.databasePath, join(resolve(home), 'auth', 'auth.db'));
    assert.deepEqual(config.jwtSecret, { kind: 'file', path: join(resolve(home), 'auth', 'jwt_secret_key') });
    assert.deepEqual(config.encryptionKey, { kind: 'file', path: join(resolve(home), 'auth', 'encryption_key') });
  });

  it('uses ~/.svc when SVC_HOME is unset', () => {
    const config = loadConfig({});
    assert.equal(config.home, join(homedir(), '.svc'));
    assert.equal(config.databasePath, join(homedir(), '.svc', 'auth', 'auth.db'));
  });

  it('takes the database path from SVC_AUTH_DB_PATH, resolved to an absolute path', () => {
    assert.equal(loadConfig({ SVC_HOME: home, SVC_AUTH_DB_PATH: '/var/lib/svc/other.db' }).databasePath, '/var/lib/svc/other.db');
    assert.equal(loadConfig({ SVC_HOME: home, SVC_AUTH_DB_PATH: 'relative.db' }).databasePath, resolve('relative.db'));
  });

  it('takes secrets of at least 256 bits from the environment (43 base64 or 64 hex characters)', () => {
    const jwt = 'j'.repeat(43);
    const encryption = 'e'.repeat(64);
    const config = loadConfig({ SVC_HOME: home, SVC_AUTH_JWT_SECRET_KEY: jwt, SVC_AUTH_ENCRYPTION_KEY: encryption });
    assert.deepEqual(config.jwtSecret, { kind: 'env', variable: 'SVC_AUTH_JWT_SECRET_KEY', value: jwt });
    assert.deepEqual(config.encryptionKey, { kind: 'env', variable: 'SVC_AUTH_ENCRYPTION_KEY', value: encryption });
  });

  it('refuses a secret from the environment weaker than 256 bits', () => {
    for (const variable of ['SVC_AUTH_JWT_SECRET_KEY', 'SVC_AUTH_ENCRYPTION_KEY']) {
      assertOneLineNaming(configErrorFor({ [variable]: 'x'.repeat(42) }), variable);
      assertOneLineNaming(configErrorFor({ [variable]: 'ab'.repeat(31) + 'a' }), variable);
    }
  });

  it('fixes the refresh-token lifetime at 7 days and the reuse grace at 10 seconds', () => {
    const config = loadConfig({ SVC_HOME: home });
    assert.equal(config.refreshTokenTtlSeconds, 7 * 24 * 60 * 60);
    assert.equal(config.refreshReuseGraceSeconds, 10);
    assert.ok(config.sessionMaxLifetimeSeconds >= config.refreshTokenTtlSeconds);
  });

  it('warns, without stopping, that SVC_FRONTEND_ENDPOINT is removed and names SVC_FRONTEND_DIST_DIR', () => {
    assert.deepEqual(loadConfig({ SVC_HOME: home }).warnings, []);
    const [warning, ...rest] = loadConfig({ SVC_HOME: home, SVC_FRONTEND_ENDPOINT: 'http://127.0.0.1:3000' }).warnings;
    assert.deepEqual(rest, []);
    assert.match(warning ?? '', /SVC_FRONTEND_ENDPOINT.*ignored.*SVC_FRONTEND_DIST_DIR/);
  });
});

describe('loadConfig: secrets from files (*_FILE, for compose and Kubernetes secrets)', () => {
  /** Writes `files` into a fresh directory and returns their paths. */
  async function secretFiles(files: Record<string, string>): Promise<Record<string, string>> {
    const directory = await mkdtemp(join(tmpdir(), 'svc-config-secrets-'));
    const paths: Record<string, string> = {};
    for (const [name, text] of Object.entries(files)) {
      paths[name] = join(directory, name);
      await writeFile(join(directory, name), text);
    }
    return paths;
  }

  it('reads both keys from the files SVC_AUTH_JWT_SECRET_KEY_FILE and SVC_AUTH_ENCRYPTION_KEY_FILE name, ignoring the trailing newline', async () => {
    const jwt = 'a1'.repeat(32);
    const encryption = 'Z'.repeat(43);
    const paths = await secretFiles({ jwt: `${jwt}\n`, encryption: `  ${encryption}\r\n` });
    const config = loadConfig({ SVC_HOME: home, SVC_AUTH_JWT_SECRET_KEY_FILE: paths['jwt'] ?? '', SVC_AUTH_ENCRYPTION_KEY_FILE: paths['encryption'] ?? '' });
    assert.deepEqual(config.jwtSecret, { kind: 'env', variable: 'SVC_AUTH_JWT_SECRET_KEY_FILE', value: jwt });
    assert.deepEqual(config.encryptionKey, { kind: 'env', variable: 'SVC_AUTH_ENCRYPTION_KEY_FILE', value: encryption });
  });

  it('stops start-up with one line for a missing, empty or weak file, or when the variable and its file are both set', async () => {
    const paths = await secretFiles({ empty: '\n', weak: 'x'.repeat(42), strong: 'f'.repeat(64) });
    for (const variable of ['SVC_AUTH_JWT_SECRET_KEY', 'SVC_AUTH_ENCRYPTION_KEY']) {
      const fileVariable = `${variable}_FILE`;
      const missing = configErrorFor({ [fileVariable]: '/nonexistent/secret' });
      assertOneLineNaming(missing, fileVariable);
      assert.match(missing.message, /cannot be read \(ENOENT\)/);
      assert.match(configErrorFor({ [fileVariable]: paths['empty'] ?? '' }).message, /is empty/);
      const weak = configErrorFor({ [fileVariable]: paths['weak'] ?? '' });
      assertOneLineNaming(weak, fileVariable);
      assert.ok(!weak.message.includes('x'.repeat(42)), 'the secret is never printed');
      assert.match(configErrorFor({ [fileVariable]: paths['strong'] ?? '', [variable]: 'g'.repeat(64) }).message, /both set: keep one/);
    }
  });

  it('puts the password SVC_DATABASE_PASSWORD_FILE holds into SVC_DATABASE_URL, percent-encoded, and never prints it', async () => {
    const password = 'p@ss/w%rd:?#\u00e9';
    const paths = await secretFiles({ password: `${password}\n` });
    const config = loadConfig({ SVC_HOME: home, SVC_DATABASE_URL: 'postgres://svc@db:5432/svc', SVC_DATABASE_PASSWORD_FILE: paths['password'] ?? '' });
    assert.ok(config.databaseUrl);
    const url = new URL(config.databaseUrl.url);
    assert.equal(decodeURIComponent(url.password), password);
    assert.equal(url.username, 'svc');
    assert.equal(config.databaseUrl.redacted, 'postgres://svc:***@db:5432/svc');
  });

  it('refuses SVC_DATABASE_PASSWORD_FILE without a URL, with a URL that holds a password or names no user, or naming a missing or empty file', async () => {
    const paths = await secretFiles({ password: 'secret-password', empty: '' });
    const file = paths['password'] ?? '';
    assertOneLineNaming(configErrorFor({ SVC_DATABASE_PASSWORD_FILE: file }), 'SVC_DATABASE_URL');
    const twice = configErrorFor({ SVC_DATABASE_URL: 'postgres://svc:other@db/svc', SVC_DATABASE_PASSWORD_FILE: file });
    assert.match(twice.message, /holds a password and SVC_DATABASE_PASSWORD_FILE is set too/);
    assert.ok(!twice.message.includes('other') && !twice.message.includes('secret-password'), twice.message);
    assert.match(configErrorFor({ SVC_DATABASE_URL: 'postgres://db/svc', SVC_DATABASE_PASSWORD_FILE: file }).message, /names no user/);
    assertOneLineNaming(configErrorFor({ SVC_DATABASE_URL: 'postgres://svc@db/svc', SVC_DATABASE_PASSWORD_FILE: '/nonexistent/password' }), 'SVC_DATABASE_PASSWORD_FILE');
    assert.match(configErrorFor({ SVC_DATABASE_URL: 'postgres://svc@db/svc', SVC_DATABASE_PASSWORD_FILE: paths['empty'] ?? '' }).message, /is empty/);
  });
});

describe('loadConfig: SVC_FRONTEND_DIST_DIR', () => {
  it('serves the bundled build when unset', () => {
    const config = loadConfig({ SVC_HOME: home });
    assert.equal(config.frontend.custom, false);
    assert.match(config.frontend.directory, /web[/\\]dist$/);
  });

  it('accepts a directory holding index.html', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'svc-ui-'));
    try {
      await writeFile(join(directory, 'index.html'), '<!doctype html>');
      assert.deepEqual(loadConfig({ SVC_HOME: home, SVC_FRONTEND_DIST_DIR: directory }).frontend, { directory, custom: true });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('stops start-up with one line for a missing directory, a file, an empty directory and one without index.html', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'svc-ui-'));
    try {
      const empty = join(directory, 'empty');
      const noIndex = join(directory, 'no-index');
      await mkdir(empty);
      await mkdir(noIndex);
      await writeFile(join(noIndex, 'app.js'), '');
      await writeFile(join(directory, 'file'), '');
      const cases: [string, RegExp][] = [
        [join(directory, 'missing'), /does not exist/],
        [join(directory, 'file'), /is not a directory/],
        [empty, /is an empty directory/],
        [noIndex, /holds no index\.html/],
      ];
      for (const [value, message] of cases) {
        const error = configErrorFor({ SVC_FRONTEND_DIST_DIR: value });
        assertOneLineNaming(error, 'SVC_FRONTEND_DIST_DIR');
        assert.match(error.message, message);
      }
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('loadConfig: SVC_TRUSTED_PROXIES and SVC_AUDIT_RETENTION_DAYS', () => {
  it('trusts no proxy by default and reads a comma-separated list of addresses and CIDRs', () => {
    assert.deepEqual(loadConfig({ SVC_HOME: home }).trustedProxies, []);
    assert.deepEqual(loadConfig({ SVC_HOME: home, SVC_TRUSTED_PROXIES: ' 10.0.0.0/8, 192.168.1.5 ,::1,loopback' }).trustedProxies, ['10.0.0.0/8', '192.168.1.5', '::1', 'loopback']);
  });

  it('stops start-up on an entry that is not an address or CIDR, naming it', () => {
    for (const value of ['10.0.0.0/33', 'proxy.example.com', '10.0.0.0/8,300.1.1.1']) {
      const error = configErrorFor({ SVC_TRUSTED_PROXIES: value });
      assertOneLineNaming(error, 'SVC_TRUSTED_PROXIES');
      assert.match(error.message, /is not an IP address or CIDR/);
    }
  });

  it('keeps audit records 90 days by default; a bad retention stops start-up', () => {
    assert.equal(loadConfig({ SVC_HOME: home }).auditRetentionDays, 90);
    assert.equal(loadConfig({ SVC_HOME: home, SVC_AUDIT_RETENTION_DAYS: '7' }).auditRetentionDays, 7);
    for (const value of ['0', '-1', 'ninety', '1.5']) assertOneLineNaming(configErrorFor({ SVC_AUDIT_RETENTION_DAYS: value }), 'SVC_AUDIT_RETENTION_DAYS');
  });
});
