/**
 * Prism, the contract's mock server, started for a test exactly as `npm run mock` starts it
 * (openapi/package.json) but on a free port, in its own process group so stopping it ends everything
 * it spawned.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const prismBin = `${repoRoot}node_modules/.bin/prism`;
const STARTUP_DEADLINE_MS = 30_000;
const STOP_GRACE_MS = 5_000;

/** A running Prism mock. */
export interface PrismMock {
  /** `http://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  /** Everything Prism printed so far (for failure messages). */
  output(): string;
  /** Ends Prism's process group and waits for it to exit. */
  stop(): Promise<void>;
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Starts `prism mock openapi/openapi.yaml` on a free port and resolves once it answers `GET /status`. */
export async function startPrism(): Promise<PrismMock> {
  assert.ok(existsSync(prismBin), `Prism is not installed at ${prismBin}; run npm install`);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(prismBin, ['mock', 'openapi/openapi.yaml', '--host', '127.0.0.1', '--port', String(port)], {
    cwd: repoRoot,
    env: { ...process.env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;

  async function stop(): Promise<void> {
    if (child.pid === undefined || !running()) return;
    process.kill(-child.pid, 'SIGTERM');
    const stopped = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), STOP_GRACE_MS))]);
    if (!stopped && running()) {
      process.kill(-child.pid, 'SIGKILL');
      await exited;
    }
  }

  const deadline = Date.now() + STARTUP_DEADLINE_MS;
  try {
    for (;;) {
      if (!running()) assert.fail(`Prism exited (${child.exitCode ?? child.signalCode}) before answering:\n${output}`);
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
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, output: () => output, stop };
}
