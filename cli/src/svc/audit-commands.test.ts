/**
 * `svc audit verify` and `svc audit search` (the real binary against a real server), and how `svc`
 * reports a banned caller (429).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { generateApiKey, SqliteStorage } from '@svc/server/internals';
import { createKey, createUser, setupAdmin, useServerWithAdmin, withTestServer } from '@svc/server/testing';
import { jsonOf, runTool, tools, type ToolResult } from '../testing/run-tool.js';

interface SearchJson {
  total: number;
  hits: { id: number; event_type: string; action: string; status: string; user: string | null; api_key_name: string | null }[];
}

describe('svc audit', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-cli-audit-'));
  });
  afterAll(() => rm(home, { recursive: true, force: true }));
  const runner = (baseUrl: string) => (args: string[]) => runTool(tools.svc, args, { env: { SVC_HOME: home, SVC_ENDPOINT: baseUrl } });
  const ok = (result: ToolResult, what: string) => {
    assert.equal(result.code, 0, `${what}: ${result.stderr}`);
    return result;
  };

  describe('on an intact trail', () => {
    const handle = useServerWithAdmin();
    let adminKey: string;
    beforeAll(async () => {
      adminKey = (await createKey(handle.server, handle.admin.accessToken, { name: 'auditor' })).key;
    });

    it('verify prints OK with the count and head (exit 0); --json prints the report', async () => {
      const svc = runner(handle.server.baseUrl);
      const verified = ok(await svc(['audit', 'verify', '-ak', adminKey]), 'verify');
      assert.match(verified.stdout, /^OK: audit chain intact: \d+ records, head [0-9a-f]{64}\n$/);
      const report = jsonOf<{ ok: boolean; checked: number }>(ok(await svc(['audit', 'verify', '--json', '-ak', adminKey]), 'verify --json'));
      assert.equal(report.ok, true);
      assert.ok(report.checked > 0);
    });

    it('search filters by action and user, prints a table or JSON; a bad --size is a usage error', async () => {
      const svc = runner(handle.server.baseUrl);
      const user = await createUser(handle.server, handle.admin.accessToken, ['models:list']);
      const found = jsonOf<SearchJson>(ok(await svc(['audit', 'search', '--action', 'login', '--user', user.username, '--json', '-ak', adminKey]), 'search'));
      assert.ok(found.total >= 1);
      assert.ok(found.hits.every((hit) => hit.action === 'login' && hit.user === user.username));
      const table = ok(await svc(['audit', 'search', '--action', 'createUser', '--size', '1', '-ak', adminKey]), 'search table');
      assert.match(table.stdout, /^ID +TIME +EVENT +STATUS +WHO +IP +DETAILS\n/);
      assert.match(table.stdout, /createUser/);
      assert.match(table.stderr, /^records 1-1 of \d+\n$/);
      const size = await svc(['audit', 'search', '--size', '0', '-ak', adminKey]);
      assert.equal(size.code, 1);
      assert.match(size.stderr, /--size/);
    });

    it('without admin: 403 names the permission (exit 3)', async () => {
      const user = await createUser(handle.server, handle.admin.accessToken, ['users:manage', 'keys:create']);
      const key = (await createKey(handle.server, user.accessToken, { name: 'not admin' })).key;
      const result = await runner(handle.server.baseUrl)(['audit', 'verify', '-ak', key]);
      assert.equal(result.code, 3);
      assert.equal(result.stderr, 'svc: forbidden: Missing permission: admin\n');
    });
  });

  it('verify names the first broken record of an edited trail and exits 6', async () => {
    await withTestServer(async (server) => {
      const admin = await setupAdmin(server);
      const key = (await createKey(server, admin.accessToken, { name: 'auditor' })).key;
      const svc = runner(server.baseUrl);
      ok(await svc(['audit', 'verify', '-ak', key]), 'verify before the edit'); // the server writes its queue first
      const storage = SqliteStorage.open(server.config.databasePath);
      let second: number;
      try {
        second = storage.database.prepare('SELECT id FROM audit_log ORDER BY id LIMIT 1 OFFSET 1').pluck().get() as number;
        storage.database.prepare('UPDATE audit_entries SET client_ip = action WHERE id = ?').run(second);
      } finally {
        await storage.close();
      }
      const broken = await svc(['audit', 'verify', '-ak', key]);
      assert.equal(broken.code, 6);
      assert.equal(broken.stdout, '');
      assert.equal(broken.stderr, `svc: audit chain broken at record ${second} (record_altered) after 1 intact records\n`);
      const json = await svc(['audit', 'verify', '--json', '-ak', key]);
      assert.equal(json.code, 6);
      assert.deepEqual(
        (({ ok: intact, first_broken_id, reason }) => ({ intact, first_broken_id, reason }))(jsonOf<{ ok: boolean; first_broken_id: number; reason: string }>(json)),
        { intact: false, first_broken_id: second, reason: 'record_altered' },
      );
    });
  });
});

describe('svc when the caller is banned (429)', () => {
  const handle = useServerWithAdmin({ securitySettings: { key: { max_failures: 2, window_seconds: 300, ban_seconds: 600 } } });

  it('prints one line with the wait and exits 5', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-cli-ban-'));
    try {
      const svc = (args: string[]) => runTool(tools.svc, args, { env: { SVC_HOME: home, SVC_ENDPOINT: handle.server.baseUrl } });
      // A well-formed key the server never issued (a deleted key is revoked, not guessed: never counted).
      const guess = generateApiKey();
      for (let attempt = 0; attempt < 2; attempt += 1) assert.equal((await svc(['whoami', '-ak', guess])).code, 2);
      const banned = await svc(['whoami', '-ak', guess]);
      assert.equal(banned.code, 5);
      assert.match(banned.stderr, /^svc: Too many failed attempts with this credential; try again in (\d+) seconds\n$/);
      const seconds = Number(/in (\d+) seconds/.exec(banned.stderr)?.[1]);
      assert.ok(seconds > 0 && seconds <= 600, banned.stderr);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('a banned address gets the same one line at login, even with the right password (exit 5); a valid key still works', async () => {
    await withTestServer({ securitySettings: { ip: { max_failures: 2, window_seconds: 300, ban_seconds: 900 } } }, async (server) => {
      const admin = await setupAdmin(server);
      const valid = (await createKey(server, admin.accessToken, { name: 'valid' })).key;
      const home = await mkdtemp(join(tmpdir(), 'svc-cli-ban-'));
      try {
        const svc = (args: string[]) => runTool(tools.svc, args, { env: { SVC_HOME: home, SVC_ENDPOINT: server.baseUrl } });
        for (const password of ['wrong password number one', 'wrong password number two']) {
          assert.equal((await svc(['login', '--username', 'admin', '--password', password])).code, 2);
        }
        const banned = await svc(['login', '--username', 'admin', '--password', admin.password]);
        assert.equal(banned.code, 5);
        assert.match(banned.stderr, /^svc: Too many failed attempts from this address; try again in \d+ seconds\n$/);
        assert.equal((await svc(['whoami', '-ak', valid])).code, 0, 'a ban stops guessing, not a live key');
      } finally {
        await rm(home, { recursive: true, force: true });
      }
    });
  });
});
