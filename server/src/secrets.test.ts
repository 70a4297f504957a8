import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { ConfigError } from './config.js';
import { resolveSecret } from './secrets.js';
import { createKey, login, setupAdmin, startTestServer } from './testing/index.js';

const temporaryDirectories: string[] = [];
async function freshDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'svc-secrets-test-'));
  temporaryDirectories.push(directory);
  return directory;
}
afterAll(async () => {
  await Promise.all(temporaryDirectories.map((directory) => rm(directory, { recursive: true, force: true })));
});

const generate = { label: 'test secret', mayGenerate: true };

describe('resolveSecret', () => {
  it('generates a 64-hex-digit secret into a 0600 file inside a 0700 directory', async () => {
    const path = join(await freshDirectory(), 'auth', 'jwt_secret_key');
    const secret = resolveSecret({ kind: 'file', path }, generate);
    assert.match(secret, /^[0-9a-f]{64}$/);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.equal((await stat(join(path, '..'))).mode & 0o777, 0o700);
  });

  it('returns the persisted value on every later call', async () => {
    const path = join(await freshDirectory(), 'auth', 'encryption_key');
    const first = resolveSecret({ kind: 'file', path }, generate);
    assert.equal(resolveSecret({ kind: 'file', path }, generate), first);
    assert.equal(resolveSecret({ kind: 'file', path }, { label: 'test secret', mayGenerate: false }), first);
  });

  it('gives two fresh homes different secrets', async () => {
    const one = resolveSecret({ kind: 'file', path: join(await freshDirectory(), 'auth', 'key') }, generate);
    const two = resolveSecret({ kind: 'file', path: join(await freshDirectory(), 'auth', 'key') }, generate);
    assert.notEqual(one, two);
  });

  it('refuses to generate a missing file when not allowed, giving the reason', async () => {
    const path = join(await freshDirectory(), 'auth', 'encryption_key');
    assert.throws(
      () => resolveSecret({ kind: 'file', path }, { label: 'API key encryption key', mayGenerate: false, missingReason: 'keys exist' }),
      (error: unknown) => error instanceof ConfigError && error.message.includes(path) && error.message.includes('keys exist'),
    );
    await assert.rejects(stat(path), { code: 'ENOENT' });
  });

  it('returns the value of an environment source unchanged, touching no file', () => {
    const value = 'an environment secret of at least thirty-two chars';
    assert.equal(resolveSecret({ kind: 'env', variable: 'SVC_AUTH_JWT_SECRET_KEY', value }, { label: 'x', mayGenerate: false }), value);
  });
});

describe('restarting on the same home', () => {
  it('keeps access tokens, refresh tokens and API keys valid, and keys revealable', async () => {
    const home = await freshDirectory();
    const first = await startTestServer({ home });
    let admin;
    let key;
    try {
      admin = await setupAdmin(first);
      key = await createKey(first, admin.accessToken, { name: 'kept' });
    } finally {
      await first.close();
    }
    const second = await startTestServer({ home });
    try {
      assert.equal((await second.request('GET', '/v1/auth/me', { token: admin.accessToken })).status, 200);
      assert.equal((await second.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
      assert.equal((await second.request('POST', '/v1/auth/refresh', { body: { refresh_token: admin.refreshToken } })).status, 200);
      const revealed = await second.request('GET', `/v1/admin/keys/${key.id}/reveal`, { token: admin.accessToken });
      assert.equal(revealed.body.key, key.key);
      await login(second, admin.username, admin.password);
    } finally {
      await second.close();
    }
  });

  it('refuses to start when the JWT secret and the encryption key are the same', async () => {
    const same = 'q'.repeat(64);
    await assert.rejects(
      startTestServer({ home: await freshDirectory(), env: { SVC_AUTH_JWT_SECRET_KEY: same, SVC_AUTH_ENCRYPTION_KEY: same } }),
      (error: unknown) => error instanceof ConfigError && /must differ/.test(error.message),
    );
  });
});

describe('start-up with a missing encryption key file', () => {
  it('stops with a ConfigError naming SVC_AUTH_ENCRYPTION_KEY when encrypted keys exist', async () => {
    const home = await freshDirectory();
    const first = await startTestServer({ home });
    try {
      const admin = await setupAdmin(first);
      await createKey(first, admin.accessToken, { name: 'survivor' });
    } finally {
      await first.close();
    }
    await unlink(join(home, 'auth', 'encryption_key'));
    await assert.rejects(
      startTestServer({ home }),
      (error: unknown) => error instanceof ConfigError && error.message.includes('SVC_AUTH_ENCRYPTION_KEY') && error.message.includes('1 API keys'),
    );
    await assert.rejects(stat(join(home, 'auth', 'encryption_key')), { code: 'ENOENT' }, 'no replacement key may be generated');
  });

  it('generates a new encryption key when no API key is stored yet', async () => {
    const home = await freshDirectory();
    const first = await startTestServer({ home });
    await first.close();
    await unlink(join(home, 'auth', 'encryption_key'));
    const second = await startTestServer({ home });
    try {
      assert.equal((await second.request('GET', '/status')).status, 200);
      assert.ok((await stat(join(home, 'auth', 'encryption_key'))).isFile());
    } finally {
      await second.close();
    }
  });
});
