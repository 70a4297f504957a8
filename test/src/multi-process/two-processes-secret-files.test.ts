/**
 * Two `svc-local` processes started at the same moment on one empty SVC_HOME create exactly one
 * pair of secret files, with safe modes and nothing left behind. SQLite only (listed in
 * `sqliteOnlyTests`): on PostgreSQL svc never generates secrets, the deployment gives them
 * (`two-processes.test.ts` runs on both backends).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '@svc/server/testing';

describe('two processes on one SVC_HOME: the secret files', () => {
  let home: string;
  const processes: ServerProcess[] = [];

  beforeAll(async () => {
    // mkdtemp gives an empty directory: no database, no secrets yet.
    home = await mkdtemp(join(tmpdir(), 'svc-two-processes-secrets-'));
    const started = await Promise.allSettled([startServerProcess({ SVC_HOME: home }), startServerProcess({ SVC_HOME: home })]);
    for (const outcome of started) if (outcome.status === 'fulfilled') processes.push(outcome.value);
    for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  it('created one JWT secret and one encryption key, 0600 in a 0700 directory, with no leftovers', () => {
    const authDirectory = join(home, 'auth');
    const entries = readdirSync(authDirectory).sort();
    const secretsAndTemporaries = entries.filter((name) => !name.startsWith('auth.db'));
    assert.deepEqual(secretsAndTemporaries, ['encryption_key', 'jwt_secret_key'], `unexpected files in ${authDirectory}: ${entries.join(', ')}`);
    assert.equal(statSync(authDirectory).mode & 0o777, 0o700);
    const secrets = secretsAndTemporaries.map((name) => {
      const path = join(authDirectory, name);
      assert.equal(statSync(path).mode & 0o777, 0o600, `${name} is mode 0600`);
      const text = readFileSync(path, 'utf8').trim();
      assert.match(text, /^[0-9a-f]{64}$/, `${name} holds 256 bits as hex`);
      return text;
    });
    assert.notEqual(secrets[0], secrets[1], 'the JWT secret and the encryption key differ');
  });
});
