/**
 * The real `svc` binary in child processes against a real server (HTTP on port 0, SQLite on disk).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { adminCredentials, createUser, useServerWithAdmin } from '@svc/server/testing';
import { jsonOf, runInPty, runTool, tools } from '../testing/run-tool.js';

interface SessionsFile {
  version: number;
  sessions: Record<string, { accessToken: string; refreshToken: string; accessTokenExpiresAt: number; username: string }>;
}

describe('svc', () => {
  const handle = useServerWithAdmin();
  let home: string;
  const env = () => ({ SVC_HOME: home, SVC_ENDPOINT: handle.server.baseUrl });
  const svc = (args: string[], input?: string, extra: Record<string, string> = {}) =>
    runTool(tools.svc, args, { env: { ...env(), ...extra }, ...(input === undefined ? {} : { input }) });
  const sessionsPath = () => join(home, 'cli', 'sessions.json');
  const sessions = async () => JSON.parse(await readFile(sessionsPath(), 'utf8')) as SessionsFile;
  const loginAdmin = async () => {
    const result = await svc(['login', '--username', adminCredentials.username, '--password', adminCredentials.password]);
    assert.equal(result.code, 0, result.stderr);
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-cli-'));
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  describe('login, whoami, logout', () => {
    it('keeps the session per endpoint in a 0600 file in a 0700 directory, and whoami uses it', async () => {
      await loginAdmin();
      assert.equal((await stat(sessionsPath())).mode & 0o777, 0o600);
      assert.equal((await stat(join(home, 'cli'))).mode & 0o777, 0o700);
      const stored = await sessions();
      assert.deepEqual(Object.keys(stored.sessions), [handle.server.baseUrl]);
      assert.equal(stored.sessions[handle.server.baseUrl]?.username, 'admin');
      const me = jsonOf<{ username: string; auth_type: string }>(await svc(['whoami', '--json']));
      assert.equal(me.username, 'admin');
      assert.equal(me.auth_type, 'jwt');
    });

    it('writes refreshed tokens back to the file', async () => {
      await loginAdmin();
      const before = await sessions();
      const entry = before.sessions[handle.server.baseUrl];
      assert.ok(entry);
      entry.accessTokenExpiresAt = 0; // expired: the SDK refreshes before the next call
      await writeFile(sessionsPath(), JSON.stringify(before));
      const result = await svc(['whoami', '--json']);
      assert.equal(result.code, 0, result.stderr);
      const afterRefresh = (await sessions()).sessions[handle.server.baseUrl];
      assert.ok(afterRefresh);
      assert.notEqual(afterRefresh.refreshToken, entry.refreshToken);
      assert.ok(afterRefresh.accessTokenExpiresAt > Date.now());
      assert.equal(afterRefresh.username, 'admin');
    });

    it('logout revokes the session on the server and forgets it; then a 401 suggests svc login (exit 2)', async () => {
      await loginAdmin();
      const refreshToken = (await sessions()).sessions[handle.server.baseUrl]?.refreshToken;
      const out = await svc(['logout']);
      assert.equal(out.code, 0, out.stderr);
      assert.deepEqual((await sessions()).sessions, {});
      const refreshed = await handle.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: refreshToken } });
      assert.equal(refreshed.status, 401);
      const who = await svc(['whoami']);
      assert.equal(who.code, 2);
      assert.equal(who.stderr.trim().split('\n').length, 1);
      assert.match(who.stderr, /^svc: .*svc login -e http:\/\/127\.0\.0\.1:\d+ --username/);
    });

    it('a wrong password exits 2 with one line and stores nothing', async () => {
      await svc(['logout']);
      const result = await svc(['login', '--username', 'admin', '--password', 'not the password at all']);
      assert.equal(result.code, 2);
      assert.match(result.stderr, /^svc: /);
      assert.doesNotMatch(result.stderr, /\n.+/);
      assert.deepEqual((await sessions()).sessions, {});
    });

    it('reads the password from stdin when stdin is not a terminal', async () => {
      const result = await svc(['login', '--username', 'admin'], `${adminCredentials.password}\n`);
      assert.equal(result.code, 0, result.stderr);
      assert.equal((await sessions()).sessions[handle.server.baseUrl]?.username, 'admin');
    });

    it('prompts for the password on a terminal without echoing it', async () => {
      await svc(['logout']);
      const result = await runInPty(tools.svc, ['login', '--username', 'admin'], { env: env(), answers: [['Password for admin: ', `${adminCredentials.password}\r`]] });
      assert.equal(result.code, 0, result.output);
      assert.equal(result.answered, 1);
      assert.match(result.output, /Logged in to/);
      assert.ok(!result.output.includes(adminCredentials.password), `the password was echoed: ${result.output}`);
      assert.equal((await sessions()).sessions[handle.server.baseUrl]?.username, 'admin');
    });

    it('Ctrl-C at the prompt exits 130 without logging in', async () => {
      await svc(['logout']);
      const result = await runInPty(tools.svc, ['login', '--username', 'admin'], { env: env(), answers: [['Password for admin: ', 'abc\u0003']] });
      assert.equal(result.code, 130, result.output);
      assert.deepEqual((await sessions()).sessions, {});
    });
  });

  describe('users', () => {
    beforeAll(loginAdmin);

    it('create, list, update, password and delete', async () => {
      const created = jsonOf<{ id: string; permissions: string[] }>(
        await svc(['users', 'create', 'dora', '--password', 'a long passphrase for dora', '--permissions', 'models:list,models:start', '--json']),
      );
      assert.deepEqual(created.permissions, ['models:list', 'models:write']);
      const listed = jsonOf<{ username: string }[]>(await svc(['users', 'list', '--json']));
      assert.ok(listed.some((u) => u.username === 'dora'));
      const table = await svc(['users', 'list']);
      assert.match(table.stdout, /USERNAME/);
      assert.match(table.stdout, /dora/);
      const disabled = jsonOf<{ enabled: boolean }>(await svc(['users', 'update', 'dora', '--disable', '--json']));
      assert.equal(disabled.enabled, false);
      const updated = jsonOf<{ enabled: boolean; permissions: string[] }>(await svc(['users', 'update', created.id, '--enable', '--permissions', 'none', '--json']));
      assert.equal(updated.enabled, true);
      assert.deepEqual(updated.permissions, []);
      const password = await svc(['users', 'password', 'dora'], 'another long passphrase for dora\n');
      assert.equal(password.code, 0, password.stderr);
      const login = await handle.server.request('POST', '/v1/auth/login', { body: { username: 'dora', password: 'another long passphrase for dora' } });
      assert.equal(login.status, 200);
      const deleted = await svc(['users', 'delete', 'dora']);
      assert.equal(deleted.code, 0, deleted.stderr);
      const gone = await svc(['users', 'delete', 'dora']);
      assert.equal(gone.code, 4);
      assert.match(gone.stderr, /^svc: no user named "dora"\n$/);
    });

    it('a taken username exits 4, a refused password exits 1, an unknown option exits 1', async () => {
      const taken = await svc(['users', 'create', 'admin', '--password', 'a long passphrase for admin2']);
      assert.equal(taken.code, 4);
      const short = await svc(['users', 'create', 'eve', '--password', 'short']);
      assert.equal(short.code, 1);
      assert.match(short.stderr, /at least 15 characters/);
      const unknown = await svc(['users', 'list', '--frobnicate']);
      assert.equal(unknown.code, 1);
    });

    it('a 403 names the missing permission (exit 3)', async () => {
      const limited = await createUser(handle.server, handle.admin.accessToken, ['keys:create']);
      const result = await svc(['users', 'list', '-ak', await keyFor(limited.accessToken)]);
      assert.equal(result.code, 3);
      assert.equal(result.stderr, 'svc: forbidden: Missing permission: users:manage\n');
    });

    async function keyFor(token: string): Promise<string> {
      const created = await handle.server.request('POST', '/v1/admin/keys', { token, body: { name: 'bootstrap' } });
      return created.body.key as string;
    }
  });

  describe('keys', () => {
    beforeAll(loginAdmin);

    it('create prints the key once; list, update, reveal and delete; -ak and -ak= authenticate', async () => {
      const created = await svc(['keys', 'create', '--name', 'laptop']);
      assert.equal(created.code, 0, created.stderr);
      const key = /^(sk-svc-\S+)$/m.exec(created.stdout)?.[1];
      assert.ok(key, created.stdout);
      const listed = jsonOf<{ id: string; name: string; key_prefix: string }[]>(await svc(['keys', 'list', '--json']));
      const entry = listed.find((k) => k.name === 'laptop');
      assert.ok(entry);
      assert.ok(!JSON.stringify(listed).includes(key), 'a listing never shows the plaintext');
      const me = jsonOf<{ auth_type: string; api_key: { id: string } }>(await svc(['whoami', '-ak', key, '--json']));
      assert.equal(me.auth_type, 'api_key');
      assert.equal(me.api_key.id, entry.id);
      const meEquals = jsonOf<{ auth_type: string }>(await svc(['whoami', `-ak=${key}`, '--json']));
      assert.equal(meEquals.auth_type, 'api_key');
      const fromEnv = jsonOf<{ auth_type: string }>(await svc(['whoami', '--json'], undefined, { SVC_API_KEY: key }));
      assert.equal(fromEnv.auth_type, 'api_key');
      const updated = jsonOf<{ name: string; enabled: boolean; permissions: string[] }>(
        await svc(['keys', 'update', entry.id, '--name', 'old laptop', '--disable', '--permissions', 'models:list', '--json']),
      );
      assert.deepEqual([updated.name, updated.enabled, updated.permissions], ['old laptop', false, ['models:list']]);
      const refused = await svc(['whoami', '-ak', key]);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /check --api-key/);
      const revealed = await svc(['keys', 'reveal', entry.id]);
      assert.equal(revealed.stdout, `${key}\n`);
      assert.equal((await svc(['keys', 'delete', entry.id])).code, 0);
      const missing = await svc(['keys', 'reveal', entry.id]);
      assert.equal(missing.code, 4);
    });

    it('nothing to change is a usage error (exit 1)', async () => {
      const result = await svc(['keys', 'update', '0192f7a5-0d3c-7e21-8b1a-2f3e4d5c6b7a']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /nothing to change/);
    });
  });

  describe('own password', () => {
    it('svc password changes it with the current one (stdin lines) and keeps this session working', async () => {
      const user = await createUser(handle.server, handle.admin.accessToken, ['keys:create']);
      const login = await svc(['login', '--username', user.username, '--password', user.password]);
      assert.equal(login.code, 0, login.stderr);
      const changed = await svc(['password'], `${user.password}\na brand new passphrase for me\n`);
      assert.equal(changed.code, 0, changed.stderr);
      assert.equal(jsonOf<{ username: string }>(await svc(['whoami', '--json'])).username, user.username);
      const old = await handle.server.request('POST', '/v1/auth/refresh', { body: { refresh_token: user.refreshToken } });
      assert.equal(old.status, 401);
    });
  });

  describe('failures', () => {
    it('an unreachable server exits 5 with one line naming the endpoint', async () => {
      const port = await closedPort();
      const result = await svc(['whoami', '-e', `http://127.0.0.1:${port}`, '-ak', 'sk-svc-anything']);
      assert.equal(result.code, 5);
      assert.equal(result.stderr, `svc: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n`);
    });

    it('without a session or a key nothing is sent, and the line says how to log in (exit 2)', async () => {
      const port = await closedPort();
      const result = await svc(['users', 'list', '-e', `http://127.0.0.1:${port}`]);
      assert.equal(result.code, 2);
      assert.equal(result.stderr, `svc: Not logged in to this endpoint; log in with: svc login -e http://127.0.0.1:${port} --username <name>\n`);
    });

    it('a bad endpoint is a usage error', async () => {
      const result = await svc(['whoami', '-e', 'ftp://example']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /must start with http/);
    });
  });
});

/** A port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
