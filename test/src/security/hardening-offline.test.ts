/**
 * Issue 14, the offline tools: H11 (never print a secret, never adopt a file that is not an svc
 * database) and `svc-unban`, the operator's way back from a ban or a lockout when no administrator
 * can reach the API. Real binaries in child processes, against the database of a running server.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { assertError, contractClient, entryPoint, nodeArguments, pollUntil, setupAdmin, startServerProcess, withTempHome } from '@svc/server/testing';
import { withSqliteFile } from './support.js';

const tool = (name: string) => entryPoint(`../../../cli/src/bin/${name}`, import.meta.url);

/** Runs an offline tool and answers how it ended. */
function run(name: string, args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, nodeArguments(tool(name), args), { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('hardening: offline tools', () => {
  it('H11: svc-migrate-auth never prints a malformed secret_key; svc-reset-auth-password refuses a file that is not an svc database and leaves it untouched', async () => {
    await withTempHome('svc-h11-', async (home) => {
      const secret = 'this-is-the-legacy-secret-not-hex-0123';
      const file = join(home, 'auth.json');
      writeFileSync(file, JSON.stringify({ auth_config: { algorithm: 'HS256', secret_key: secret }, user_config: [] }));
      const migrated = await run('svc-migrate-auth', ['--auth-config', file, '--db-path', join(home, 'new.db')], { SVC_HOME: home });
      assert.equal(migrated.code, 1);
      assert.match(migrated.stderr, /secret_key/);
      assert.ok(!migrated.stderr.includes(secret) && !migrated.stdout.includes(secret), migrated.stderr);
      writeFileSync(file, `{"auth_config": {"secret_key": "${secret}"`);
      const broken = await run('svc-migrate-auth', ['--auth-config', file, '--db-path', join(home, 'new.db')], { SVC_HOME: home });
      assert.equal(broken.code, 1);
      assert.ok(!broken.stderr.includes(secret), broken.stderr);

      for (const [name, content] of [['empty.db', ''], ['notes.txt', 'just some notes\n']] as const) {
        const stray = join(home, name);
        writeFileSync(stray, content);
        const reset = await run('svc-reset-auth-password', ['--username', 'admin', '--password', 'an entirely new passphrase', '--db-path', stray], { SVC_HOME: home });
        assert.equal(reset.code, 4, reset.stderr);
        assert.match(reset.stderr, /is not an svc database/);
        assert.equal(statSync(stray).size, Buffer.byteLength(content));
        assert.equal(readFileSync(stray, 'utf8'), content);
        const unban = await run('svc-unban', ['list', '--db-path', stray], { SVC_HOME: home });
        assert.equal(unban.code, 4);
      }
    });
  });

  it('Lockout: svc-unban lists and lifts bans and lockouts in the database of a running server, audited as offline_unban', async () => {
    await withTempHome('svc-unban-', async (home) => {
      const env = { SVC_HOME: home, SVC_TRUSTED_PROXIES: '127.0.0.1' };
      const server = await startServerProcess(env, [], { securitySettings: { ip: { max_failures: 2 }, login: { failures_before_lockout: 2 } } });
      try {
        const client = contractClient(server.baseUrl);
        const admin = await setupAdmin(client);
        const badLogin = (ip: string) => client.request('POST', '/v1/auth/login', { body: { username: admin.username, password: 'a mistyped passphrase' }, headers: { 'x-forwarded-for': ip } });
        await badLogin('127.0.0.1');
        await badLogin('127.0.0.1');
        const refused = await client.request('POST', '/v1/auth/login', { body: { username: admin.username, password: admin.password } });
        assertError(refused, 429, 'ip_banned');

        const listed = await run('svc-unban', ['list', '--json'], { SVC_HOME: home });
        assert.equal(listed.code, 0, listed.stderr);
        const rows = JSON.parse(listed.stdout) as { kind: string; ip: string | null; username: string | null }[];
        assert.deepEqual(rows.map((row) => `${row.kind}:${row.ip ?? row.username}`).sort(), ['account:admin', 'ip:127.0.0.1']);
        const human = await run('svc-unban', ['list'], { SVC_HOME: home });
        assert.match(human.stdout, /address 127\.0\.0\.1: \d+ failures, until \S+ \(\d+ s left\)/);

        const usage = await run('svc-unban', ['lift'], { SVC_HOME: home });
        assert.equal(usage.code, 1);
        assert.equal(usage.stderr.trim().split('\n').length, 1);
        const unknown = await run('svc-unban', ['lift', '--user', 'nobody-by-that-name'], { SVC_HOME: home });
        assert.equal(unknown.code, 4);

        assert.equal((await run('svc-unban', ['lift', '--ip', '::ffff:127.0.0.1'], { SVC_HOME: home })).code, 0);
        // The address is free again, but the account is still locked: a wrong-looking answer.
        assertError(await client.request('POST', '/v1/auth/login', { body: { username: admin.username, password: admin.password } }), 401, 'invalid_credentials');
        const lifted = await run('svc-unban', ['lift', '--user', admin.username], { SVC_HOME: home });
        assert.equal(lifted.code, 0, lifted.stderr);
        assert.match(lifted.stdout, /Lifted 1 ban/);
        const loggedIn = await client.request('POST', '/v1/auth/login', { body: { username: admin.username, password: admin.password } });
        assert.equal(loggedIn.status, 200, loggedIn.text);
        assert.match((await run('svc-unban', ['list'], { SVC_HOME: home })).stdout, /No active bans or lockouts/);

        const events = await pollUntil(
          () => Promise.resolve(withSqliteFile(home, (db) => db.prepare("SELECT target, details FROM audit_log WHERE event_type = 'offline_unban' ORDER BY id").all() as { target: string; details: string }[])),
          (found) => found.length >= 2,
          { timeoutMs: 10_000, intervalMs: 50 },
        );
        const recorded = events.at(-1) ?? [];
        assert.deepEqual(recorded.map((event) => event.target), ['127.0.0.1', admin.username]);
        assert.match(recorded[0]?.details ?? '', /os_user/);
      } finally {
        await server.stop();
      }
    });
  });
});
