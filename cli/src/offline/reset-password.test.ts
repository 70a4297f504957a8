/**
 * The real `svc-reset-auth-password` binary against the database of a running `svc-local` process.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { adminCredentials, contractClient, createUser, login, setupAdmin, startServerProcess, type ContractClient, type LoggedInUser, type ServerProcess } from '@svc/server/testing';
import { runInPty, runTool, tools } from '../testing/run-tool.js';

describe('svc-reset-auth-password', () => {
  let home: string;
  let server: ServerProcess;
  let client: ContractClient;
  let admin: LoggedInUser;
  const env = () => ({ SVC_HOME: home });
  const reset = (args: string[], input?: string, extra: Record<string, string> = {}) =>
    runTool(tools.reset, args, { env: { ...env(), ...extra }, ...(input === undefined ? {} : { input }) });

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-reset-'));
    server = await startServerProcess({ SVC_HOME: home });
    client = contractClient(server.baseUrl);
    admin = await setupAdmin(client);
  });
  afterAll(async () => {
    await server.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('resets while the server runs: old access and refresh tokens are refused at once, the new password logs in', async () => {
    const before = await login(client, admin.username, admin.password);
    assert.equal((await client.request('GET', '/v1/auth/me', { token: before.access_token })).status, 200);
    const result = await reset(['--username', 'admin', '--password', 'a fresh passphrase after the reset']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Password of admin reset/);
    assert.equal((await client.request('GET', '/v1/auth/me', { token: before.access_token })).status, 401);
    assert.equal((await client.request('POST', '/v1/auth/refresh', { body: { refresh_token: before.refresh_token } })).status, 401);
    assert.equal((await client.request('POST', '/v1/auth/login', { body: { username: 'admin', password: adminCredentials.password } })).status, 401);
    const fresh = await login(client, 'admin', 'a fresh passphrase after the reset');
    admin = { ...admin, password: 'a fresh passphrase after the reset', accessToken: fresh.access_token, refreshToken: fresh.refresh_token };
  });

  it('refuses a user without admin (exit 3) and changes nothing', async () => {
    const user = await createUser(client, admin.accessToken, ['users:manage']);
    const result = await reset(['--username', user.username, '--password', 'a passphrase that is never set']);
    assert.equal(result.code, 3);
    assert.match(result.stderr, new RegExp(`^svc-reset-auth-password: ${user.username} does not hold admin`));
    assert.equal(result.stderr.split('\n').length, 2);
    assert.equal((await client.request('GET', '/v1/auth/me', { token: user.accessToken })).status, 200);
    await login(client, user.username, user.password);
  });

  it('applies the password policy (exit 1) and reports an unknown user (exit 4)', async () => {
    const short = await reset(['--username', 'admin', '--password', 'too short']);
    assert.equal(short.code, 1);
    assert.match(short.stderr, /at least 15 characters.*nothing was changed/);
    const common = await reset(['--username', 'admin', '--password', 'passwordpassword']);
    assert.equal(common.code, 1);
    assert.match(common.stderr, /too easy to guess/);
    const unknown = await reset(['--username', 'nobody-here', '--password', 'a passphrase that is never set']);
    assert.equal(unknown.code, 4);
    await login(client, 'admin', admin.password);
  });

  it('prompts twice without echo on a terminal; a mismatch changes nothing (exit 1)', async () => {
    const mismatch = await runInPty(tools.reset, ['--username', 'admin', '--yes'], {
      env: env(),
      answers: [
        ['New password for admin: ', 'one passphrase typed here\r'],
        ['Repeat the new password: ', 'another passphrase typed\r'],
      ],
    });
    assert.equal(mismatch.code, 1, mismatch.output);
    assert.match(mismatch.output, /do not match/);
    assert.ok(!mismatch.output.includes('one passphrase typed here'));
    await login(client, 'admin', admin.password);

    const matched = await runInPty(tools.reset, ['--username', 'admin'], {
      env: env(),
      answers: [
        ['New password for admin: ', 'the prompted new passphrase\r'],
        ['Repeat the new password: ', 'the prompted new passphrase\r'],
        ['\\[y/N\\] ', 'y\r'],
      ],
    });
    assert.equal(matched.code, 0, matched.output);
    assert.equal(matched.answered, 3);
    assert.ok(!matched.output.includes('the prompted new passphrase'), `echoed: ${matched.output}`);
    await login(client, 'admin', 'the prompted new passphrase');
    admin = { ...admin, password: 'the prompted new passphrase' };
  });

  it('reads one line of stdin when it is not a terminal', async () => {
    const result = await reset(['--username', 'admin'], 'a passphrase from a pipe\n');
    assert.equal(result.code, 0, result.stderr);
    await login(client, 'admin', 'a passphrase from a pipe');
    admin = { ...admin, password: 'a passphrase from a pipe' };
  });

  it('--db-path and SVC_AUTH_DB_PATH choose the database; a missing one is reported (exit 4), not created', async () => {
    const byOption = await reset(['--username', 'admin', '--password', 'a passphrase via db path', '--db-path', join(home, 'auth', 'auth.db')], undefined, { SVC_HOME: join(home, 'elsewhere') });
    assert.equal(byOption.code, 0, byOption.stderr);
    const byVariable = await reset(['--username', 'admin', '--password', 'a passphrase via variable'], undefined, {
      SVC_HOME: join(home, 'elsewhere'),
      SVC_AUTH_DB_PATH: join(home, 'auth', 'auth.db'),
    });
    assert.equal(byVariable.code, 0, byVariable.stderr);
    await login(client, 'admin', 'a passphrase via variable');
    admin = { ...admin, password: 'a passphrase via variable' };
    const missing = join(home, 'missing', 'auth.db');
    const result = await reset(['--username', 'admin', '--password', 'a passphrase via variable', '--db-path', missing]);
    assert.equal(result.code, 4);
    assert.match(result.stderr, /no database at/);
    assert.equal(existsSync(missing), false);
  });

  it('records each reset as one audit event in the same transaction, without the password; a refused reset records nothing', async () => {
    const search = async () => {
      const fresh = await login(client, 'admin', admin.password);
      const found = await client.request('GET', '/v1/audit/search?event_type=offline_password_reset&time_from=now-1d&size=1000', { token: fresh.access_token });
      assert.equal(found.status, 200);
      return found.body as { total: number; hits: Record<string, unknown>[] };
    };
    const before = await search();
    const user = await createUser(client, (await login(client, 'admin', admin.password)).access_token, ['users:manage']);
    assert.equal((await reset(['--username', user.username, '--password', 'a passphrase that is never set'])).code, 3);
    assert.equal((await reset(['--username', 'admin', '--password', 'too short'])).code, 1);
    assert.equal((await search()).total, before.total, 'a refused reset left an audit event');
    const password = 'the audited reset passphrase';
    const result = await reset(['--username', 'admin', '--password', password]);
    assert.equal(result.code, 0, result.stderr);
    admin = { ...admin, password };
    const after = await search();
    assert.equal(after.total, before.total + 1);
    const event = after.hits[0] as { event_type: string; action: string; category: string; status: string; user: string; user_id: string; target: string; details: { sessions_revoked: boolean; os_user: string | null; host: string } };
    assert.deepEqual(
      [event.event_type, event.action, event.category, event.status, event.user, event.user_id, event.target],
      ['offline_password_reset', 'svc-reset-auth-password', 'admin', 'success', 'admin', admin.id, admin.id],
    );
    assert.equal(event.details.sessions_revoked, true);
    assert.equal(typeof event.details.host, 'string');
    assert.ok(!JSON.stringify(after.hits).includes(password), 'the password is in the audit trail');
    const fresh = await login(client, 'admin', password);
    const verified = await client.request('GET', '/v1/audit/verify', { token: fresh.access_token });
    assert.equal(verified.body.ok, true, 'the offline event broke the chain');
  });

  it('a file that is not a database ends with one line and exit 4, never a stack trace, and stays as it was', async () => {
    const notADatabase = join(home, 'not-a-database.db');
    await writeFile(notADatabase, 'this is not SQLite, only text long enough to have a header of a hundred bytes or so; really not.');
    const result = await reset(['--username', 'admin', '--password', 'a passphrase via variable', '--db-path', notADatabase]);
    assert.equal(result.code, 4);
    assert.equal(result.stderr.trim().split('\n').length, 1);
    assert.match(result.stderr, /^svc-reset-auth-password: .*not-a-database\.db is not an svc database; pass --db-path/);
  });
});
