/**
 * The contract's mock server: Prism started exactly as `npm run mock` starts it (on a free port)
 * serves the contract's examples and validates requests against the contract.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ResponseValidator } from '@svc/server';

// This file runs from test/dist/contract/; the repository root is three levels up.
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const prismBin = `${repoRoot}node_modules/.bin/prism`;
const STARTUP_DEADLINE_MS = 30_000;

interface BundledContract {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { example?: unknown }> }> }>>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

describe('Prism mock of the contract', () => {
  let child: ChildProcess;
  let baseUrl: string;
  let output = '';
  let exited: Promise<void>;
  const validator = new ResponseValidator();

  before(async () => {
    assert.ok(existsSync(prismBin), `Prism is not installed at ${prismBin}; run npm install`);
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // The same command line as `npm run mock` (openapi/package.json), but on a free port.
    child = spawn(prismBin, ['mock', 'openapi/openapi.yaml', '--host', '127.0.0.1', '--port', String(port)], {
      cwd: repoRoot,
      env: { ...process.env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + STARTUP_DEADLINE_MS;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        assert.fail(`Prism exited (${child.exitCode ?? child.signalCode}) before answering:\n${output}`);
      }
      try {
        const response = await fetch(`${baseUrl}/status`, { signal: AbortSignal.timeout(1000) });
        await response.arrayBuffer();
        if (response.status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) assert.fail(`Prism did not answer within ${STARTUP_DEADLINE_MS} ms:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });

  after(async () => {
    if (child === undefined || child.pid === undefined) return;
    if (child.exitCode === null && child.signalCode === null) {
      // Prism was started in its own process group; end that group (Prism and anything it spawned).
      process.kill(-child.pid, 'SIGTERM');
      const stopped = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000))]);
      if (!stopped) {
        process.kill(-child.pid, 'SIGKILL');
        await exited;
      }
    }
  });

  it('answers GET /v1/admin/setup/status with the contract example', async () => {
    const contract = JSON.parse(readFileSync(`${repoRoot}server/src/generated/contract.json`, 'utf8')) as BundledContract;
    const example = contract.paths['/v1/admin/setup/status']?.['get']?.responses['200']?.content?.['application/json']?.example;
    assert.notEqual(example, undefined, 'the contract has an example for GET /v1/admin/setup/status 200');
    const response = await fetch(`${baseUrl}/v1/admin/setup/status`);
    assert.equal(response.status, 200);
    const body: unknown = await response.json();
    assert.deepEqual(body, example);
    assert.equal(validator.check('GET', '/v1/admin/setup/status', 200, body), null);
  });

  it('refuses POST /v1/admin/setup with a body that breaks the contract', async () => {
    const invalidBodies: unknown[] = [{ username: 42 }, { username: 'admin' }, { username: 'admin', password: 'correct horse battery staple', extra: true }, []];
    for (const invalid of invalidBodies) {
      const response = await fetch(`${baseUrl}/v1/admin/setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(invalid),
      });
      const text = await response.text();
      assert.ok(response.status >= 400 && response.status < 500, `${JSON.stringify(invalid)} → ${response.status}: ${text}`);
    }
  });

  it('accepts a valid POST /v1/admin/setup with a contract-conforming answer', async () => {
    const response = await fetch(`${baseUrl}/v1/admin/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'correct horse battery staple' }),
    });
    assert.equal(response.status, 201);
    assert.equal(validator.check('POST', '/v1/admin/setup', 201, await response.json()), null);
  });
});
