/**
 * Tables fit the terminal: the real binary's tables (keys, users, audit records, model families)
 * at several widths — `COLUMNS` when stdout is not a terminal, 80 without it, and the terminal's own
 * width in a pseudo-terminal — with no rule between rows.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createKey, createUser, useServerWithAdmin } from '@svc/server/testing';
import { runInPty, runTool, tools } from '../testing/run-tool.js';

const tables = [
  ['keys', 'list'],
  ['users', 'list'],
  ['audit', 'search', '--size', '20'],
  ['registrations'],
] as const;

/** The display lines of an output (a pseudo-terminal ends them with CR LF). */
const linesOf = (text: string) => text.split(/\r?\n/).filter((line) => line !== '');
const widest = (text: string) => Math.max(...linesOf(text).map((line) => [...line].length));

describe('svc tables fit the terminal', () => {
  const handle = useServerWithAdmin();
  let home: string;
  let adminKey: string;
  const env = (extra: Record<string, string> = {}) => ({ SVC_HOME: home, SVC_ENDPOINT: handle.server.baseUrl, SVC_API_KEY: adminKey, ...extra });

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-cli-width-'));
    adminKey = (await createKey(handle.server, handle.admin.accessToken, { name: 'admin cli' })).key;
    const user = await createUser(handle.server, handle.admin.accessToken, ['models:list', 'models:read', 'keys:create'], 'a-rather-long-username-for-tables');
    await createKey(handle.server, user.accessToken, {
      name: 'the nightly integration build of the documentation site',
      permissions: ['models:list', 'models:read'],
      model_permissions: [{ permission_type: 'model_type', permission_value: 'embedding' }],
    });
    await handle.server.request('POST', '/v1/auth/login', { body: { username: user.username, password: 'not the password of this user' } });
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  for (const columns of [40, 60, 80, 120]) {
    it(`every table fits ${columns} columns (COLUMNS=${columns}, stdout a pipe)`, async () => {
      for (const args of tables) {
        const result = await runTool(tools.svc, [...args], { env: env({ COLUMNS: String(columns) }) });
        assert.equal(result.code, 0, result.stderr);
        assert.ok(widest(result.stdout) <= columns, `svc ${args.join(' ')} is wider than ${columns}:\n${result.stdout}`);
        assert.doesNotMatch(result.stdout, /^[\s─┼├┤+|=-]+$/m, 'no rule lines');
      }
    });
  }

  it('is 80 columns wide when stdout is not a terminal and COLUMNS is unset; the audit table stays a table', async () => {
    const result = await runTool(tools.svc, ['audit', 'search', '--action', 'login'], { env: env() });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(widest(result.stdout) <= 80, result.stdout);
    assert.match(result.stdout, /^ID +TIME +EVENT +STATUS +WHO +IP +DETAILS$/m);
    assert.match(result.stdout, /^\d+ +\d{4}-\d\d-\d\d +\S+ +login_failed/m, 'one line starts each record');
  });

  it("uses the terminal's width at a terminal, wider than 80 when the terminal is", async () => {
    for (const columns of [150, 70]) {
      const result = await runInPty(tools.svc, ['keys', 'list'], { env: env(), answers: [], columns });
      assert.equal(result.code, 0, result.output);
      assert.ok(widest(result.output) <= columns, `wider than ${columns}:\n${result.output}`);
      if (columns > 80) assert.ok(widest(result.output) > 80, `a ${columns}-column terminal gets rows wider than 80:\n${result.output}`);
    }
  });
});
