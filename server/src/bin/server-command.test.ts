/**
 * The two server binaries, run as real processes: the same options and API, and the same refusal of
 * the removed `--auth-config`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'vitest';
import { entryPoint, nodeArguments } from '../testing/node-command.js';
import { withTempHome } from '../testing/scoped.js';
import { contractClient } from '../testing/test-server.js';

const binaries = {
  'svc-local': entryPoint('./svc-local', import.meta.url),
  'svc-supervisor': entryPoint('./svc-supervisor', import.meta.url),
} as const;

function run(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, nodeArguments(script, args), { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('server binaries', () => {
  for (const [name, script] of Object.entries(binaries)) {
    it(`${name} refuses --auth-config with one line pointing to svc-migrate-auth (exit 2)`, async () => {
      await withTempHome('svc-bin-', async (home) => {
        const result = await run(script, ['--auth-config', '/etc/auth.json', '--port', '0'], { SVC_HOME: home });
        assert.equal(result.code, 2);
        assert.equal(result.stdout, '');
        assert.match(result.stderr, new RegExp(`^${name}: --auth-config was removed in release 3\\.0: .*svc-migrate-auth --auth-config <file> --db-path <db> --encryption-key <key>\\n$`));
      });
    });
  }

  it('svc-supervisor serves the same REST API with the same options', async () => {
    await withTempHome('svc-supervisor-', async (home) => {
      const child = spawn(process.execPath, nodeArguments(binaries['svc-supervisor'], ['--host', '127.0.0.1', '--port', '0', '--log-level', 'error']), {
        env: { PATH: process.env['PATH'] ?? '', SVC_HOME: home },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        const baseUrl = await new Promise<string>((resolve, reject) => {
          let stdout = '';
          child.stdout.on('data', (chunk: Buffer) => {
            stdout += chunk.toString();
            const match = /svc listening on (http:\/\/\S+) \(authentication on; database /.exec(stdout);
            if (match !== null) resolve(match[1] as string);
          });
          child.once('exit', (code) => reject(new Error(`svc-supervisor exited with ${code}`)));
        });
        const status = await contractClient(baseUrl).request('GET', '/v1/admin/setup/status');
        assert.equal(status.status, 200);
        assert.equal(status.body.needs_setup, true);
      } finally {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('close', resolve));
      }
    });
  });

  it('a bad option is refused by the parser under the binary\'s name (exit 1)', async () => {
    const result = await run(binaries['svc-supervisor'], ['--port', 'x'], {});
    assert.equal(result.code, 1);
    assert.match(result.stderr, /option '-p, --port <port>' argument 'x' is invalid/);
  });
});
