/**
 * Test support for the container tests: podman and podman-compose as real processes, and waiting
 * for a service to answer. `../shared/tools/container-images.sh` prepares the machine (`.ci/run`
 * runs it); its configuration file is used when present.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { pollUntil } from '@svc/server/testing';

/** The podman configuration written by container-images.sh (runc, cgroupfs, file events). */
const containersConf = join(homedir(), '.config', 'svc-containers.conf');

/** What a command printed, and how it ended. */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` with `args`; rejects when it exits non-zero unless `allowFailure`. */
export function run(command: string, args: readonly string[], options: { cwd?: string; env?: Record<string, string>; allowFailure?: boolean } = {}): Promise<CommandResult> {
  const env = { ...process.env, ...(existsSync(containersConf) ? { CONTAINERS_CONF: containersConf } : {}), ...options.env };
  const child = spawn(command, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0 && options.allowFailure !== true) reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${stdout}\n${stderr}`));
      else resolve({ code, stdout, stderr });
    });
  });
}

/** Waits (bounded) until `GET url` answers `status`; throws with the last outcome otherwise. */
export async function waitForStatus(url: string, status: number, timeoutMs = 90_000): Promise<void> {
  const seen = await pollUntil(
    async () => {
      try {
        return (await fetch(url)).status;
      } catch (error) {
        return (error as Error).message;
      }
    },
    (outcome) => outcome === status,
    { timeoutMs, intervalMs: 250 },
  );
  const last = seen.at(-1);
  if (last !== status) throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms (last: ${String(last)})`);
}

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Makes sure the local `node:20-bookworm-slim` stand-in carries Node's C++ headers, as the official
 * image does (`/usr/local/include/node`), so better-sqlite3 compiles without downloading them. The
 * stand-ins that `container-images.sh` builds copy only the `node` binary; this adds the headers of
 * the same Node from this machine (`/usr/include/node`). A no-op when the image has them.
 */
export async function ensureNodeHeadersInBaseImage(baseImage = 'docker.io/library/node:20-bookworm-slim'): Promise<void> {
  const probe = await run('podman', ['run', '--rm', '--entrypoint', 'sh', baseImage, '-c', 'test -f "$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")/include/node/node.h"'], { allowFailure: true });
  if (probe.code === 0) return;
  const { mkdtemp, cp, writeFile, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const hostHeaders = join(dirname(dirname(process.execPath)), 'include', 'node');
  if (!existsSync(join(hostHeaders, 'node.h'))) throw new Error(`${baseImage} has no Node headers and neither has this machine (${hostHeaders})`);
  const context = await mkdtemp(join(tmpdir(), 'svc-node-headers-'));
  try {
    await cp(hostHeaders, join(context, 'node'), { recursive: true });
    await writeFile(join(context, 'Dockerfile'), `FROM ${baseImage}\nCOPY node /usr/include/node\n`);
    await run('podman', ['build', '-t', baseImage, context]);
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}
