import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { nodeArguments, setupAdmin, svcLocalPath, useServer, withTempHome } from '../testing/index.js';
import { clientRoutes } from './client-routes.js';

const INDEX = '<!doctype html><html><head><script type="module" src="/assets/app-1234.js"></script></head><body><div id="root"></div></body></html>';

/** A frontend build in a temporary directory: index.html, a hashed asset and an icon. */
function writeBuild(): string {
  const directory = mkdtempSync(join(tmpdir(), 'svc-ui-build-'));
  mkdirSync(join(directory, 'assets'));
  writeFileSync(join(directory, 'index.html'), INDEX);
  writeFileSync(join(directory, 'assets', 'app-1234.js'), 'console.log("svc");');
  writeFileSync(join(directory, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return directory;
}

function assertUiSecurityHeaders(response: Response, where: string): void {
  const csp = response.headers.get('content-security-policy') ?? '';
  assert.match(csp, /script-src 'self'(;|$)/, `${where}: scripts only from the server's own files`);
  assert.doesNotMatch(csp, /script-src[^;]*'unsafe-(inline|eval)'/, `${where}: no inline script, no eval`);
  assert.match(csp, /frame-ancestors 'none'/, where);
  assert.match(csp, /object-src 'none'/, where);
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff', where);
  assert.equal(response.headers.get('referrer-policy'), 'no-referrer', where);
  assert.equal(response.headers.get('x-frame-options'), 'DENY', where);
}

async function assertApiNotFound(response: Response, where: string): Promise<void> {
  assert.equal(response.status, 404, where);
  const body = (await response.json()) as { detail: string; error: { code: string } };
  assert.equal(body.error.code, 'not_found', where);
  assert.equal(typeof body.detail, 'string', where);
}

describe('the web UI beside the API (SVC_FRONTEND_DIST_DIR)', () => {
  const build = writeBuild();
  const ctx = useServer({ env: { SVC_FRONTEND_DIST_DIR: build } });
  afterAll(() => rm(build, { recursive: true, force: true }));

  it('answers index.html with the security headers at every client route, so a reload opens the page', async () => {
    for (const path of clientRoutes) {
      const response = await fetch(ctx.server.baseUrl + path);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/, path);
      assert.equal(await response.text(), INDEX, path);
      assertUiSecurityHeaders(response, path);
    }
  });

  it('serves the build files with their type, the security headers, and long caching for hashed assets', async () => {
    const asset = await fetch(`${ctx.server.baseUrl}/assets/app-1234.js`);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('content-type') ?? '', /javascript/);
    assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
    assertUiSecurityHeaders(asset, 'asset');
    const icon = await fetch(`${ctx.server.baseUrl}/favicon.svg`);
    assert.equal(icon.status, 200);
    assert.match(icon.headers.get('content-type') ?? '', /image\/svg\+xml/);
    assertUiSecurityHeaders(icon, 'icon');
  });

  it('redirects the legacy /ui/ paths to /', async () => {
    for (const path of ['/ui', '/ui/', '/ui/users', '/ui/a/b?x=1']) {
      const response = await fetch(ctx.server.baseUrl + path, { redirect: 'manual' });
      assert.equal(response.status, 301, path);
      assert.equal(response.headers.get('location'), '/', path);
    }
  });

  it('answers 404 in the error shape for /v1/ui/*, per-model demo paths and files the build does not hold', async () => {
    for (const path of ['/v1/ui', '/v1/ui/', '/v1/ui/my-model', '/qwen2.5-instruct', '/my-model-uid/chat', '/assets/missing.js', '/users/extra', '/../etc/passwd']) {
      await assertApiNotFound(await fetch(ctx.server.baseUrl + path), path);
    }
  });

  it("answers a browser navigation to an unknown path with the app (status 404), so the UI shows its not-found page", async () => {
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    for (const path of ['/nowhere', '/users/extra', '/qwen2.5-instruct', '/a/b/c?x=1']) {
      const response = await fetch(ctx.server.baseUrl + path, { headers: browser });
      assert.equal(response.status, 404, path);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/, path);
      assert.equal(await response.text(), INDEX, path);
      assertUiSecurityHeaders(response, path);
    }
  });

  it('keeps API paths, missing build files, other methods and non-browser clients on the JSON 404', async () => {
    const browser = { accept: 'text/html,*/*;q=0.8' };
    for (const path of ['/v1/nowhere', '/v1/ui/my-model', '/token/x', '/metrics/x', '/status/x', '/assets/missing.js']) {
      await assertApiNotFound(await fetch(ctx.server.baseUrl + path, { headers: browser }), `${path} from a browser`);
    }
    await assertApiNotFound(await fetch(`${ctx.server.baseUrl}/nowhere`, { headers: { accept: 'application/json' } }), 'an API client');
    await assertApiNotFound(await fetch(`${ctx.server.baseUrl}/nowhere`), 'fetch without Accept');
    await assertApiNotFound(await fetch(`${ctx.server.baseUrl}/nowhere`, { method: 'DELETE', headers: browser }), 'DELETE');
  });

  it('serves client routes to GET only: other methods are the API 404', async () => {
    await assertApiNotFound(await fetch(`${ctx.server.baseUrl}/users`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }), 'POST /users');
  });

  it('keeps the API answering JSON beside the UI', async () => {
    const response = await fetch(`${ctx.server.baseUrl}/v1/admin/setup/status`);
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { needs_setup: boolean }).needs_setup, true);
  });

  it('leaves page loads and their files out of the audit trail, which records the API calls beside them', async () => {
    const uiPaths = ['/', '/keys', '/assets/app-1234.js', '/favicon.svg', '/ui/users'];
    for (const path of uiPaths) assert.ok((await fetch(ctx.server.baseUrl + path, { redirect: 'manual' })).status < 400, path);
    await fetch(`${ctx.server.baseUrl}/v1/ui/nothing`);
    const admin = await setupAdmin(ctx.server);
    const search = await ctx.server.request('GET', '/v1/audit/search?time_from=now-1h&size=1000', { token: admin.accessToken });
    assert.equal(search.status, 200, search.text);
    const endpoints = (search.body.hits as { endpoint: string | null }[]).map((hit) => hit.endpoint);
    for (const path of uiPaths) assert.ok(!endpoints.includes(path), `${path} is not audited`);
    assert.ok(endpoints.includes('/v1/admin/setup/status'), 'the API call beside them is');
    assert.ok(endpoints.includes('/v1/ui/nothing'), 'an unknown path is an API 404, audited as such');
  });
});

describe('without a built web UI', () => {
  const ctx = useServer({ config: { frontend: { directory: join(tmpdir(), 'svc-no-such-build'), custom: false } } });

  it('still serves the API, and / is the API 404', async () => {
    assert.equal((await fetch(`${ctx.server.baseUrl}/status`)).status, 200);
    await assertApiNotFound(await fetch(`${ctx.server.baseUrl}/`), '/');
  });
});

describe('svc-local with an unusable SVC_FRONTEND_DIST_DIR', () => {
  it('stops before listening with one line naming the variable, exit code 2', async () => {
    await withTempHome('svc-ui-', async (home) => {
      const empty = join(home, 'empty-build');
      await mkdir(empty);
      const child = spawn(process.execPath, nodeArguments(svcLocalPath, ['--port', '0']), {
        env: { PATH: process.env['PATH'] ?? '', SVC_HOME: home, SVC_FRONTEND_DIST_DIR: empty },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 2);
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
      assert.match(stderr, /^svc-local: SVC_FRONTEND_DIST_DIR=.* is an empty directory/);
    });
  });
});
