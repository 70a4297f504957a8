/**
 * `svc usage` (the real binary against a real server): the table, `--json`, `--csv`, filters by
 * user name and key name, and the refusal of another user's usage without `usage:read_all`.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openStorage, storageConfigOf } from '@svc/server/internals';
import { createKey, createUser, useServerWithAdmin, type LoggedInUser } from '@svc/server/testing';
import { jsonOf, runTool, tools, type ToolResult } from '../testing/run-tool.js';

const HOUR = 3_600_000;

describe('svc usage', () => {
  const handle = useServerWithAdmin();
  let home: string;
  let adminKey: string;
  let alice: LoggedInUser;
  let aliceKey: { id: string; key: string };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-cli-usage-'));
    adminKey = (await createKey(handle.server, handle.admin.accessToken, { name: 'usage admin' })).key;
    alice = await createUser(handle.server, handle.admin.accessToken, ['models:read', 'keys:create']);
    aliceKey = await createKey(handle.server, alice.accessToken, { name: 'alice notebook' });
    const storage = await openStorage(storageConfigOf(handle.server.config));
    const hour = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
    const row = { hourStart: hour, model: 'llama-3', errors: 0, estimatedCalls: 0, latencyMsSum: 3000 };
    await storage.usage.add([
      { ...row, keyId: aliceKey.id, userId: alice.id, calls: 3, promptTokens: 1200, completionTokens: 34 },
      { ...row, keyId: null, userId: handle.admin.id, model: 'echo', calls: 1, promptTokens: 5, completionTokens: 5, latencyMsSum: 10 },
    ]);
    await storage.close();
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  const svc = (args: string[]) => runTool(tools.svc, args, { env: { SVC_HOME: home, SVC_ENDPOINT: handle.server.baseUrl } });
  const ok = (result: ToolResult, what: string) => {
    assert.equal(result.code, 0, `${what}: ${result.stderr}`);
    return result;
  };

  it('prints a table of everyone’s usage by model for an administrator, with a summary line', async () => {
    const result = ok(await svc(['usage', '--from', 'now-1d', '-ak', adminKey]), 'usage');
    assert.match(result.stdout, /^DAY +MODEL +CALLS +ERRORS +PROMPT +COMPLETION +TOTAL +MEAN MS\n/);
    assert.match(result.stdout, /llama-3 +3 +0 +1,200 +34 +1,234 +1,000\n/);
    assert.match(result.stdout, /echo +1 +0 +5 +5 +10 +10\n/);
    assert.match(result.stderr, /^everyone's usage from .* to .*: 4 calls, 1,244 tokens\n$/);
  });

  it('filters by user name and key name, by the hour, as JSON', async () => {
    const byUser = jsonOf<{ scope: string; data: { group: string; calls: number }[] }>(
      ok(await svc(['usage', '--from', 'now-1d', '--interval', 'hour', '--group-by', 'key', '--user', alice.username, '--json', '-ak', adminKey]), 'by user'),
    );
    assert.equal(byUser.scope, 'all');
    assert.deepEqual(byUser.data.map((row) => [row.group, row.calls]), [[aliceKey.id, 3]]);
    const byKey = jsonOf<{ data: { calls: number }[] }>(ok(await svc(['usage', '--from', 'now-1d', '--key', 'alice notebook', '--json', '-ak', aliceKey.key]), 'by key'));
    assert.deepEqual(byKey.data.map((row) => row.calls), [3]);
  });

  it('prints the CSV export with --csv', async () => {
    const result = ok(await svc(['usage', '--from', 'now-1d', '--group-by', 'user', '--csv', '-ak', aliceKey.key]), 'csv');
    const lines = result.stdout.trimEnd().split('\r\n');
    assert.equal(lines[0], 'period_start,group,calls,errors,prompt_tokens,completion_tokens,total_tokens,estimated_calls,mean_latency_ms');
    assert.equal(lines.length, 2, 'only alice’s own row');
  });

  it('refuses another user’s usage without usage:read_all (exit 3), and a bad --group-by (exit 1)', async () => {
    const refused = await svc(['usage', '--user', handle.admin.id, '-ak', aliceKey.key]);
    assert.equal(refused.code, 3, refused.stderr);
    assert.match(refused.stderr, /usage:read_all/);
    const bad = await svc(['usage', '--group-by', 'team', '-ak', aliceKey.key]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /use one of: key, user, model/);
  });
});
