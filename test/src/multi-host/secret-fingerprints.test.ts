/**
 * Secret fingerprints (issue 12): every host of a deployment must hold the same JWT signing secret
 * and API-key encryption key. The first process records a keyed fingerprint of each in the database;
 * a real `svc-local` given another secret stops at start-up with one line naming the secret (never
 * its value) and how to rotate, on PostgreSQL and on SQLite (a restored database with a changed
 * secret file). `--replace-secret-fingerprints` is the one start of a deliberate rotation.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { adminCredentials, contractClient, createKey, login, nodeArguments, setupAdmin, startServerProcess, svcLocalPath, type PostgresCluster } from '@svc/server/testing';
import { startDeployment, startTestCluster, type Deployment } from './deployment.js';

interface Exit {
  code: number | null;
  stderr: string;
  stdout: string;
}

/** Runs `svc-local` with exactly `env` until it exits (it must: nothing here lets it start). */
function runUntilExit(env: Record<string, string>, args: readonly string[] = []): Promise<Exit> {
  const child = spawn(process.execPath, nodeArguments(svcLocalPath, ['--port', '0', ...args]), {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr, stdout })));
}

/** Exit 2 before listening, with one line naming `variable` and the way to rotate, and none of `secrets`. */
function assertRefused(result: Exit, variable: string, secrets: readonly string[]): void {
  assert.equal(result.code, 2, `exit code; stderr: ${result.stderr}`);
  assert.doesNotMatch(result.stdout, /svc listening/);
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line, got: ${result.stderr}`);
  const line = lines[0] ?? '';
  assert.match(line, /^svc-local: /);
  assert.match(line, /not the one this database was first started with/);
  assert.match(line, new RegExp(`give every host the same ${variable}`));
  assert.match(line, /--replace-secret-fingerprints/);
  assert.doesNotMatch(line, /hmac-sha256/, 'no fingerprint in the line');
  for (const secret of secrets) assert.ok(!result.stderr.includes(secret), 'a secret leaked into the line');
}

const newSecret = (): string => randomBytes(32).toString('hex');

describe('secret fingerprints on PostgreSQL', () => {
  let cluster: PostgresCluster;
  let deployment: Deployment;

  beforeAll(async () => {
    cluster = await startTestCluster();
    deployment = await startDeployment(1, { cluster });
  });

  afterAll(async () => {
    await deployment?.destroy();
    await cluster?.stop();
  });

  const fingerprints = async () => deployment.query<{ name: string; fingerprint: string }>('SELECT name, fingerprint FROM secret_fingerprints ORDER BY name');

  it('Should record one keyed fingerprint per secret on first start, and neither secret', async () => {
    const rows = await fingerprints();
    assert.deepEqual(rows.map((row) => row.name), ['encryption', 'jwt_signing']);
    for (const row of rows) {
      assert.match(row.fingerprint, /^hmac-sha256-v1:[0-9a-f]{64}$/);
      for (const secret of [deployment.environment['SVC_AUTH_JWT_SECRET_KEY'], deployment.environment['SVC_AUTH_ENCRYPTION_KEY']]) {
        assert.ok(!row.fingerprint.includes(secret ?? '-'), 'the stored fingerprint holds a secret');
      }
    }
  });

  it('Should stop a host given another JWT signing secret, naming SVC_AUTH_JWT_SECRET_KEY and not its value, and record nothing', async () => {
    const before = await fingerprints();
    const other = newSecret();
    const result = await runUntilExit({ ...deployment.environment, SVC_AUTH_JWT_SECRET_KEY: other });
    assertRefused(result, 'SVC_AUTH_JWT_SECRET_KEY', [other, deployment.environment['SVC_AUTH_JWT_SECRET_KEY'] ?? '-', deployment.environment['SVC_AUTH_ENCRYPTION_KEY'] ?? '-']);
    assert.match(result.stderr, /JWT signing secret given by SVC_AUTH_JWT_SECRET_KEY/);
    assert.deepEqual(await fingerprints(), before);
  });

  it('Should stop a host given another encryption key, naming SVC_AUTH_ENCRYPTION_KEY and not its value', async () => {
    const other = newSecret();
    const result = await runUntilExit({ ...deployment.environment, SVC_AUTH_ENCRYPTION_KEY: other });
    assertRefused(result, 'SVC_AUTH_ENCRYPTION_KEY', [other, deployment.environment['SVC_AUTH_ENCRYPTION_KEY'] ?? '-']);
    assert.match(result.stderr, /API key encryption key given by SVC_AUTH_ENCRYPTION_KEY/);
  });

  it('Should rotate: one start with --replace-secret-fingerprints takes the new secrets, hosts with them agree, hosts with the old ones are stopped', async () => {
    const first = deployment.hosts[0]!.client;
    await setupAdmin(first);
    const oldEnvironment = deployment.environment;
    const rotated = { ...oldEnvironment, SVC_AUTH_JWT_SECRET_KEY: newSecret(), SVC_AUTH_ENCRYPTION_KEY: newSecret() };
    // The procedure of docs/deployment.md: stop every host, start one with the flag, then the rest.
    await Promise.all(deployment.hosts.map((host) => host.process.stop()));
    const rotating = await startServerProcess(rotated, ['--replace-secret-fingerprints']);
    const following = await startServerProcess(rotated);
    try {
      const tokens = await login(contractClient(rotating.baseUrl), adminCredentials.username, adminCredentials.password);
      const me = await contractClient(following.baseUrl).request('GET', '/v1/auth/me', { token: tokens.access_token });
      assert.equal(me.status, 200, 'a token of the rotating host is accepted by the host that followed');
      const key = await createKey(contractClient(following.baseUrl), tokens.access_token, { name: 'after rotation' });
      const revealed = await contractClient(rotating.baseUrl).request('GET', `/v1/admin/keys/${key.id}/reveal`, { token: tokens.access_token });
      assert.equal(revealed.body.key, key.key, 'a key stored by one host is revealed by the other');
      const stale = await runUntilExit(oldEnvironment);
      assert.equal(stale.code, 2, stale.stderr);
      assert.match(
        stale.stderr,
        /^svc-local: the JWT signing secret given by SVC_AUTH_JWT_SECRET_KEY and the API key encryption key given by SVC_AUTH_ENCRYPTION_KEY are not the ones this database was first started with \(their fingerprints differ\): give every host the same SVC_AUTH_JWT_SECRET_KEY and SVC_AUTH_ENCRYPTION_KEY, or, to rotate, /,
      );
      for (const secret of [...Object.values(oldEnvironment), ...Object.values(rotated)].filter((value) => /^[0-9a-f]{64}$/.test(value))) {
        assert.ok(!stale.stderr.includes(secret), 'a secret leaked into the line');
      }
    } finally {
      await rotating.stop();
      await following.stop();
    }
  });
});

describe('secret fingerprints on SQLite', () => {
  let home: string;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-fingerprints-'));
  });

  afterAll(async () => {
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  it('Should stop a restored database started with a changed encryption key file, and start it once the rotation is deliberate', async () => {
    const first = await startServerProcess({ SVC_HOME: home });
    const client = contractClient(first.baseUrl);
    const admin = await setupAdmin(client);
    await createKey(client, admin.accessToken, { name: 'before the restore' });
    await first.stop();
    const keyFile = join(home, 'auth', 'encryption_key');
    const original = (await readFile(keyFile, 'utf8')).trim();
    const replacement = newSecret();
    await writeFile(keyFile, `${replacement}\n`, { mode: 0o600 });

    const refused = await runUntilExit({ SVC_HOME: home });
    assertRefused(refused, 'SVC_AUTH_ENCRYPTION_KEY', [original, replacement]);
    assert.match(refused.stderr, new RegExp(`API key encryption key given by the file ${keyFile.replaceAll('/', '\\/')} is not the one`));

    const rotating = await startServerProcess({ SVC_HOME: home }, ['--replace-secret-fingerprints']);
    await rotating.stop();
    const after = await startServerProcess({ SVC_HOME: home });
    await after.stop();
  });
});
