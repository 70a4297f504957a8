/**
 * Runs the worked example of `docs/migration.md` as it is written (bash, with the real binaries on
 * PATH and a free port in place of 9997), so the guide cannot drift from the tools.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { nodeShellCommand, svcLocalPath } from '@svc/server/testing';
import { tools } from './testing/run-tool.js';

const guide = fileURLToPath(new URL('../../docs/migration.md', import.meta.url));

/** The shell block between the example's markers. */
async function exampleScript(): Promise<string> {
  const text = await readFile(guide, 'utf8');
  const match = /<!-- migration-example:start -->\s*```sh\n([\s\S]*?)```\s*<!-- migration-example:end -->/.exec(text);
  assert.ok(match?.[1], 'docs/migration.md lost its example markers');
  return match[1];
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('docs/migration.md', () => {
  it('the worked example runs from a legacy file to a running server', { timeout: 120_000 }, async () => {
    const work = await mkdtemp(join(tmpdir(), 'svc-guide-'));
    const bin = join(work, 'bin');
    await mkdir(bin);
    const binaries: Record<string, string> = { svc: tools.svc, 'svc-migrate-auth': tools.migrate, 'svc-reset-auth-password': tools.reset, 'svc-local': svcLocalPath };
    for (const [name, script] of Object.entries(binaries)) {
      await writeFile(join(bin, name), `#!/bin/sh\nexec ${nodeShellCommand(script)} "$@"\n`);
      await chmod(join(bin, name), 0o755);
    }
    const port = String(await freePort());
    const script = (await exampleScript()).replaceAll('9997', port);
    const child = spawn('bash', ['-c', `set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n${script}`], {
      cwd: work,
      env: { PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: work },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      assert.equal(code, 0, `the example failed:\n${stdout}\n${stderr}`);
      assert.match(stdout, /Would do: users 2 created, 0 updated, 0 kept; API keys 2 created, 0 re-encrypted, 0 kept\./);
      assert.match(stdout, /Done: users 2 created, 0 updated, 0 kept; API keys 2 created, 0 re-encrypted, 0 kept\./);
      assert.match(stdout, /^username +carol$/m);
      assert.match(stdout, /^permissions +models:list, models:read, models:write$/m);
      assert.match(stderr, /Your password must be changed: run svc password/);
      assert.match(stdout, /Password changed/);
      assert.ok(stdout.trimEnd().endsWith('sk-ZOTLIHanuNt0a'), stdout);
    } finally {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // Already gone: the script's trap stopped the server.
      }
      await rm(work, { recursive: true, force: true });
    }
  });
});
