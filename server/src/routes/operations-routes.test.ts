import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertError, createKey, createUser, useServerWithAdmin, type LoggedInUser } from '../testing/index.js';

for (const { label, path, directoryName, listPermission, deletePermission } of [
  { label: 'model cache', path: '/v1/cache/models', directoryName: 'cache', listPermission: 'cache:list', deletePermission: 'cache:delete' },
  { label: 'virtual environments', path: '/v1/virtualenvs', directoryName: 'virtualenv', listPermission: 'virtualenv:list', deletePermission: 'virtualenv:delete' },
] as const) {
  describe(`${label} (${path})`, () => {
    const ctx = useServerWithAdmin();
    let operator: LoggedInUser;
    let outside: string;
    let directory: string;
    beforeAll(async () => {
      operator = await createUser(ctx.server, ctx.admin.accessToken, [listPermission, deletePermission]);
      directory = join(ctx.server.home, directoryName);
      outside = mkdtempSync(join(tmpdir(), 'svc-outside-'));
      writeFileSync(join(outside, 'precious.txt'), 'do not delete');
    });
    afterAll(() => rmSync(outside, { recursive: true, force: true }));

    it('lists nothing while the directory does not exist', async () => {
      const response = await ctx.server.request('GET', path, { token: operator.accessToken });
      assert.equal(response.status, 200);
      assert.equal(response.body.directory, directory);
      assert.deepEqual(response.body.list, []);
    });

    it('lists real entries with their sizes (symbolic links are not listed)', async () => {
      mkdirSync(join(directory, 'qwen-chat', 'weights'), { recursive: true });
      writeFileSync(join(directory, 'qwen-chat', 'weights', 'a.bin'), Buffer.alloc(1000));
      writeFileSync(join(directory, 'qwen-chat', 'config.json'), '{}');
      symlinkSync(outside, join(directory, 'linked'));
      const response = await ctx.server.request('GET', path, { token: operator.accessToken });
      assert.deepEqual(response.body.list.map((e: { name: string }) => e.name), ['qwen-chat']);
      assert.equal(response.body.list[0].size_bytes, 1002);
      assert.equal(response.body.list[0].path, join(directory, 'qwen-chat'));
    });

    it('refuses names that leave the directory and symbolic links (400 unsafe_path), touching nothing outside', async () => {
      for (const name of ['..', '../..', `../${outside}`, 'a/b', '.', '.hidden/..']) {
        const response = await ctx.server.request('DELETE', `${path}?model_name=${encodeURIComponent(name)}`, { token: operator.accessToken });
        assert.equal(response.status, 400, `name ${name}: ${response.text}`);
        assert.ok(['invalid_request', 'unsafe_path'].includes(response.body.error.code), response.text);
        assert.equal(response.body.error.param, 'model_name');
      }
      assertError(await ctx.server.request('DELETE', `${path}?model_name=linked`, { token: operator.accessToken }), 400, 'unsafe_path');
      assert.ok(existsSync(join(outside, 'precious.txt')));
      assert.ok(existsSync(join(directory, 'linked')));
    });

    it('deletes an entry (200 with the bytes freed); a second delete answers 404 entry_not_found', async () => {
      symlinkSync(join(outside, 'precious.txt'), join(directory, 'qwen-chat', 'link-inside'));
      const response = await ctx.server.request('DELETE', `${path}?model_name=qwen-chat`, { token: operator.accessToken });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, { name: 'qwen-chat', deleted: true, freed_bytes: 1002 });
      assert.ok(!existsSync(join(directory, 'qwen-chat')));
      assert.ok(existsSync(join(outside, 'precious.txt')), 'a link inside the entry is removed, not followed');
      assertError(await ctx.server.request('DELETE', `${path}?model_name=qwen-chat`, { token: operator.accessToken }), 404, 'entry_not_found');
    });

    it(`needs ${listPermission} to list and ${deletePermission} to delete`, async () => {
      const lister = await createUser(ctx.server, ctx.admin.accessToken, [listPermission]);
      assert.equal((await ctx.server.request('GET', path, { token: lister.accessToken })).status, 200);
      assertError(await ctx.server.request('DELETE', `${path}?model_name=x`, { token: lister.accessToken }), 403, 'permission_denied');
    });
  });
}

describe('cluster logs (/v1/cluster/logs)', () => {
  const ctx = useServerWithAdmin();

  it('returns recent log lines, oldest first, with keys, tokens and secrets redacted', async () => {
    const key = await createKey(ctx.server, ctx.admin.accessToken, { name: 'leaky' });
    const log = ctx.server.app.log;
    log.info(`client presented ${key.key}`);
    log.warn(`header was Authorization: Bearer ${ctx.admin.accessToken}`);
    log.info({ body: { password: 'hunter2-hunter2', refresh_token: ctx.admin.refreshToken } }, `login body ${JSON.stringify({ password: 'hunter2-hunter2' })}`);
    log.error(`refresh ${ctx.admin.refreshToken} then ${ctx.admin.accessToken}`);
    log.info('the last line');
    const response = await ctx.server.request('GET', '/v1/cluster/logs?lines=5', { token: ctx.admin.accessToken });
    assert.equal(response.status, 200);
    assert.equal(response.body.lines.length, 5);
    assert.equal(response.body.lines.at(-1).message, 'the last line');
    assert.equal(response.body.lines.at(-2).level, 'error');
    for (const secret of [key.key, ctx.admin.accessToken, ctx.admin.refreshToken, 'hunter2-hunter2']) {
      assert.ok(!response.text.includes(secret), `the log returned a secret: ${secret.slice(0, 12)}…`);
    }
    assert.match(response.body.lines[0].message, /\[redacted\]/);
  });

  it('never returns the server\'s own secrets', async () => {
    const { readFileSync } = await import('node:fs');
    const source = ctx.server.config.jwtSecret;
    const jwtSecret = source.kind === 'env' ? source.value : readFileSync(source.path, 'utf8').trim();
    ctx.server.app.log.info(`debugging with ${jwtSecret}`);
    const response = await ctx.server.request('GET', '/v1/cluster/logs', { token: ctx.admin.accessToken });
    assert.ok(!response.text.includes(jwtSecret));
  });

  it('answers 400 for a line count out of range', async () => {
    assertError(await ctx.server.request('GET', '/v1/cluster/logs?lines=0', { token: ctx.admin.accessToken }), 400, 'invalid_request');
    assertError(await ctx.server.request('GET', '/v1/cluster/logs?lines=5000', { token: ctx.admin.accessToken }), 400, 'invalid_request');
  });
});

describe('metrics (/metrics)', () => {
  const ctx = useServerWithAdmin();

  it('serves Prometheus text with request, auth-failure and ban counters', async () => {
    const watcher = await createUser(ctx.server, ctx.admin.accessToken, ['monitor:view']);
    await ctx.server.request('GET', '/v1/models', { token: 'sk-svc-not-a-real-key' });
    await ctx.server.request('GET', '/v1/models', { token: watcher.accessToken });
    const response = await ctx.server.request('GET', '/metrics', { token: watcher.accessToken });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.match(response.text, /svc_http_requests_total\{method="POST",route="\/v1\/auth\/login",status="200"\} \d+/);
    assert.match(response.text, /svc_auth_failures_total\{reason="permission_denied"\} 1/);
    assert.match(response.text, /svc_auth_failures_total\{reason="invalid_api_key"\} 1/);
    assert.match(response.text, /svc_bans_total\{kind="ip"\} 0/);
    assert.match(response.text, /svc_active_bans\{kind="key"\} 0/);
    assert.match(response.text, /svc_process_cpu_user_seconds_total/);
  });

  it('a caller without monitor:view gets 403', async () => {
    const other = await createUser(ctx.server, ctx.admin.accessToken, ['logs:list']);
    assertError(await ctx.server.request('GET', '/metrics', { token: other.accessToken }), 403, 'permission_denied');
  });
});
