/**
 * Security requirements 40–42: the generated secret files (JWT signing secret, API-key encryption
 * key): randomness, file modes, agreement between processes starting together, survival across
 * restarts, and refusing to replace a lost encryption key silently.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import {
  adminCredentials,
  assertError,
  contractClient,
  createKey,
  login,
  setupAdmin,
  startServerProcess,
  startTestServer,
  withTempHome,
  withTestServer,
  type ServerProcess,
} from '@svc/server/testing';
import { authDirectory, encryptionKeyFile, jwtSecretFile } from './support.js';

const mode = (path: string) => statSync(path).mode & 0o777;
const octal = (value: number) => `0${value.toString(8)}`;

describe('security: secret files (R40–R42)', () => {
  // Moved here from tokens.test.ts: on PostgreSQL svc generates no secret.
  it('R20: the generated JWT secret has at least 256 bits (64 hex characters) and differs from the encryption key', async () => {
    await withTestServer(async (server) => {
      const secret = jwtSecretFile(server.home);
      assert.match(secret, /^[0-9a-f]{64,}$/);
      assert.equal(new Set(secret).size > 8, true, 'the secret does not look random');
      assert.notEqual(secret, encryptionKeyFile(server.home));
      assert.match(encryptionKeyFile(server.home), /^[0-9a-f]{64,}$/);
    });
  });

  it('R40: two fresh homes get different, random secrets', async () => {
    const first = await startTestServer();
    const second = await startTestServer();
    try {
      const secrets = [jwtSecretFile(first.home), encryptionKeyFile(first.home), jwtSecretFile(second.home), encryptionKeyFile(second.home)];
      for (const secret of secrets) assert.match(secret, /^[0-9a-f]{64}$/);
      assert.equal(new Set(secrets).size, 4, 'two secrets are equal');
      // 64 hex characters from a CSPRNG use most of the 16 symbols; a constant or patterned value would not.
      for (const secret of secrets) assert.ok(new Set(secret).size >= 10, `low-variety secret ${secret}`);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('R41: the secret files and the database are mode 0600 in a 0700 directory, with no temporary file left', async () => {
    await withTempHome('svc-secrets-', async (home) => {
      await withTestServer({ home }, async (server) => {
        // Writes so that the WAL and shared-memory files exist too.
        const admin = await setupAdmin(server);
        await createKey(server, admin.accessToken, { name: 'r41' });
        const directory = authDirectory(home);
        assert.equal(octal(mode(directory)), '0700');
        const files = readdirSync(directory).sort();
        assert.deepEqual(
          files.filter((f) => !['auth.db', 'auth.db-wal', 'auth.db-shm', 'encryption_key', 'jwt_secret_key'].includes(f)),
          [],
          `unexpected files: ${files.join(', ')}`,
        );
        for (const file of ['jwt_secret_key', 'encryption_key', 'auth.db', 'auth.db-wal', 'auth.db-shm']) {
          const path = join(directory, file);
          if (file.startsWith('auth.db-') && !existsSync(path)) continue;
          assert.equal(octal(mode(path)), '0600', file);
        }
      });
    });
  });

  it('R41: a pre-existing group- and world-readable auth directory is tightened to 0700 on first run', async () => {
    await withTempHome('svc-secrets-', async (home) => {
      mkdirSync(authDirectory(home), { mode: 0o755 });
      assert.equal(octal(mode(authDirectory(home))) === '0700', false);
      await withTestServer({ home }, async (server) => {
        assert.equal(octal(mode(authDirectory(home))), '0700');
        assert.equal(octal(mode(join(authDirectory(home), 'jwt_secret_key'))), '0600');
      });
    });
  });

  it('R41: four processes started together on one empty home agree on the secrets: a token or key from any works on all', async () => {
    await withTempHome('svc-secrets-', async (home) => {
      const started = await Promise.allSettled(Array.from({ length: 4 }, () => startServerProcess({ SVC_HOME: home })));
      const processes = started.filter((s): s is PromiseFulfilledResult<ServerProcess> => s.status === 'fulfilled').map((s) => s.value);
      try {
        const failures = started.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => String(s.reason));
        assert.deepEqual(failures, [], 'a process failed to start');
        const clients = processes.map((p) => contractClient(p.baseUrl));
        const [first, second] = clients as [ReturnType<typeof contractClient>, ReturnType<typeof contractClient>];
        const admin = await setupAdmin(first);
        const key = await createKey(second, admin.accessToken, { name: 'r41-shared' });
        const tokens = [admin.accessToken];
        for (const client of clients) tokens.push((await login(client, adminCredentials.username, adminCredentials.password)).access_token);
        for (const [i, client] of clients.entries()) {
          for (const [j, token] of tokens.entries()) {
            assert.equal((await client.request('GET', '/v1/auth/me', { token })).status, 200, `token ${j} refused by process ${i}`);
          }
          assert.equal((await client.request('GET', '/v1/auth/me', { token: key.key })).status, 200, `key refused by process ${i}`);
          const revealed = await client.request('GET', `/v1/admin/keys/${key.id}/reveal`, { token: admin.accessToken });
          assert.equal(revealed.status, 200, `process ${i} uses another encryption key: ${revealed.text}`);
          assert.equal(revealed.body.key, key.key);
        }
        assert.match(jwtSecretFile(home), /^[0-9a-f]{64}$/);
        assert.deepEqual(readdirSync(authDirectory(home)).filter((f) => f.endsWith('.tmp')), [], 'temporary files left behind');
      } finally {
        await Promise.all(processes.map((p) => p.stop()));
      }
    });
  });

  it('R42: a restart keeps access tokens, refresh tokens and keys valid, and keys revealable', async () => {
    await withTempHome('svc-secrets-', async (home) => {
      const before = await startTestServer({ home });
      const admin = await setupAdmin(before);
      const key = await createKey(before, admin.accessToken, { name: 'r42' });
      const secrets = [jwtSecretFile(home), encryptionKeyFile(home)];
      await before.close();

      await withTestServer({ home }, async (after) => {
        assert.deepEqual([jwtSecretFile(home), encryptionKeyFile(home)], secrets, 'a secret changed across the restart');
        assert.equal((await after.request('GET', '/v1/auth/me', { token: admin.accessToken })).status, 200);
        assert.equal((await after.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
        assert.equal((await after.request('POST', '/v1/auth/refresh', { body: { refresh_token: admin.refreshToken } })).status, 200);
        const revealed = await after.request('GET', `/v1/admin/keys/${key.id}/reveal`, { token: admin.accessToken });
        assert.equal(revealed.body.key, key.key);
      });
    });
  });

  it('R42: a missing encryption key file while keys exist stops start-up with a clear message and is not recreated', async () => {
    await withTempHome('svc-secrets-', async (home) => {
      const first = await startTestServer({ home });
      const admin = await setupAdmin(first);
      const key = await createKey(first, admin.accessToken, { name: 'r42-lost' });
      await first.close();
      const keyFile = join(authDirectory(home), 'encryption_key');
      const original = readFileSync(keyFile, 'utf8');
      rmSync(keyFile);

      await assert.rejects(startServerProcess({ SVC_HOME: home }), (error: Error) => {
        assert.match(error.message, /exited with 2/);
        assert.match(error.message, /encryption key file .*encryption_key is missing/);
        assert.match(error.message, /1 API keys are stored encrypted with it/);
        assert.match(error.message, /SVC_AUTH_ENCRYPTION_KEY/);
        return true;
      });
      await assert.rejects(startTestServer({ home }), /is missing/);
      assert.equal(existsSync(keyFile), false, 'the encryption key file was silently recreated');

      // Restoring the file brings everything back.
      writeFileSync(keyFile, original, { mode: 0o600 });
      await withTestServer({ home }, async (restored) => {
        assert.equal((await restored.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
        assert.equal((await restored.request('GET', `/v1/admin/keys/${key.id}/reveal`, { token: admin.accessToken })).body.key, key.key);
      });
    });
  });

  it('R42: a damaged (truncated) secret file stops start-up and is left as it is', async () => {
    await withTempHome('svc-secrets-', async (home) => {
      const first = await startTestServer({ home });
      await first.close();
      const secretFile = join(authDirectory(home), 'jwt_secret_key');
      writeFileSync(secretFile, 'abc123\n', { mode: 0o600 });
      await assert.rejects(startTestServer({ home }), /JWT signing secret file .* holds fewer than/);
      assert.equal(readFileSync(secretFile, 'utf8'), 'abc123\n');
    });
  });

  it('R42: a lost JWT secret file is regenerated, and every old access token is refused (fail closed)', async () => {
    await withTempHome('svc-secrets-', async (home) => {
      const first = await startTestServer({ home });
      const admin = await setupAdmin(first);
      const key = await createKey(first, admin.accessToken, { name: 'r42-jwt' });
      const oldSecret = jwtSecretFile(home);
      await first.close();
      rmSync(join(authDirectory(home), 'jwt_secret_key'));

      await withTestServer({ home }, async (second) => {
        assert.notEqual(jwtSecretFile(home), oldSecret);
        const refused = await second.request('GET', '/v1/auth/me', { token: admin.accessToken });
        assertError(refused, 401, 'invalid_token');
        // Keys do not depend on the JWT secret; refresh tokens are database records and still rotate.
        assert.equal((await second.request('GET', '/v1/auth/me', { token: key.key })).status, 200);
        const refreshed = await second.request('POST', '/v1/auth/refresh', { body: { refresh_token: admin.refreshToken } });
        assert.equal(refreshed.status, 200);
        assert.equal((await second.request('GET', '/v1/auth/me', { token: refreshed.body.access_token })).status, 200);
      });
    });
  });
});
