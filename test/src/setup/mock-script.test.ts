/**
 * `npm run mock -- --port <n>` serves the contract's mock on that port (it used to be appended after
 * a fixed `--port 4010`, which Prism took instead).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'vitest';
import { pollUntil } from '@svc/server/testing';
import { freePort, repoRoot } from '../support/prism.js';

/** How long Prism may take to start (it compiles the contract first). */
const STARTUP_TIMEOUT_MS = 60_000;

describe('npm run mock', () => {
  it('passes --port through to Prism', async () => {
    const port = await freePort();
    const child = spawn('npm', ['run', 'mock', '--', '--port', String(port)], {
      cwd: repoRoot,
      env: { ...process.env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      const answers = await pollUntil(
        async () => {
          assert.equal(child.exitCode, null, `npm run mock exited before answering:\n${output}`);
          try {
            const response = await fetch(`http://127.0.0.1:${port}/v1/admin/setup/status`, { signal: AbortSignal.timeout(1000) });
            await response.arrayBuffer();
            return response.status;
          } catch {
            return undefined; // not listening yet: poll again (bounded)
          }
        },
        (answer) => answer !== undefined,
        { timeoutMs: STARTUP_TIMEOUT_MS, intervalMs: 200 },
      );
      const status = answers.at(-1);
      assert.equal(status, 200, `the mock did not answer on port ${port}:\n${output}`);
      assert.match(output, new RegExp(`127\\.0\\.0\\.1:${port}`), 'Prism reports the port it was given');
    } finally {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
  });
});
