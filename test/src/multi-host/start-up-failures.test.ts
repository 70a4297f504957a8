/**
 * `svc-local` on PostgreSQL refuses to start, with one readable line and exit code 2, when
 * `SVC_DATABASE_URL` is malformed, names a server that does not answer, or carries a wrong password;
 * the line never shows the password.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { nodeArguments, svcLocalPath, type PostgresCluster } from '@svc/server/testing';
import { startTestCluster } from './deployment.js';

const PASSWORD = 'Sup3r-s3cret-passw0rd';

/** Runs `svc-local` with `databaseUrl` until it exits (it must: nothing here lets it start). */
function runUntilExit(home: string, databaseUrl: string): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, nodeArguments(svcLocalPath, ['--port', '0']), {
    env: {
      PATH: process.env['PATH'] ?? '',
      SVC_HOME: home,
      SVC_DATABASE_URL: databaseUrl,
      SVC_AUTH_JWT_SECRET_KEY: randomBytes(32).toString('hex'),
      SVC_AUTH_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr, stdout })));
}

/** A port on 127.0.0.1 where nothing listens. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function assertOneLineRefusal(result: { code: number | null; stderr: string; stdout: string }, pattern: RegExp): void {
  assert.equal(result.code, 2, `exit code; stderr: ${result.stderr}`);
  assert.doesNotMatch(result.stdout, /svc listening/);
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line, got: ${result.stderr}`);
  assert.match(lines[0] ?? '', /^svc-local: /);
  assert.match(lines[0] ?? '', pattern);
  assert.ok(!result.stderr.includes(PASSWORD), `the password leaked: ${result.stderr}`);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
}

describe('svc-local on PostgreSQL: start-up refusals', () => {
  let cluster: PostgresCluster;
  let home: string;

  beforeAll(async () => {
    cluster = await startTestCluster();
    home = await mkdtemp(join(tmpdir(), 'svc-start-up-'));
  });

  afterAll(async () => {
    await cluster?.stop();
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  it('refuses a malformed URL with one line that hides the password', async () => {
    const result = await runUntilExit(home, `postgres://svc:${PASSWORD}@db.internal:not-a-port/svc`);
    assertOneLineRefusal(result, /SVC_DATABASE_URL/);
  });

  it('refuses a URL of another scheme', async () => {
    const result = await runUntilExit(home, `mysql://svc:${PASSWORD}@127.0.0.1:3306/svc`);
    assertOneLineRefusal(result, /SVC_DATABASE_URL/);
  });

  it('refuses a server that does not answer with one line that hides the password', async () => {
    const result = await runUntilExit(home, `postgres://svc:${PASSWORD}@127.0.0.1:${await closedPort()}/svc`);
    assertOneLineRefusal(result, /database|connect/i);
  });

  it('refuses a wrong password with one line that says so and hides it', async () => {
    const url = new URL(await cluster.createDatabase());
    url.password = PASSWORD;
    const result = await runUntilExit(home, url.toString());
    assertOneLineRefusal(result, /password authentication failed/);
  });
});
