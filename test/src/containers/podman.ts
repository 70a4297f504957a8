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

/**
 * An image on `baseImage` whose entrypoint reads `POSTGRES_PASSWORD_FILE` into `POSTGRES_PASSWORD`
 * before handing over, as the official postgres image does itself: the local stand-in that
 * `container-images.sh` builds reads `POSTGRES_PASSWORD` only. A no-op wrapper on an official image.
 * Returns the new image's name.
 */
export async function buildPasswordFilePostgres(baseImage: string): Promise<string> {
  const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const entrypoint = await run('podman', ['image', 'inspect', baseImage, '--format', '{{json .Config.Entrypoint}}']);
  const original = JSON.parse(entrypoint.stdout.trim() || 'null') as string[] | null;
  if (original === null || original.length === 0) throw new Error(`${baseImage} has no entrypoint to wrap`);
  const name = 'localhost/svc-test-postgres:latest';
  const context = await mkdtemp(join(tmpdir(), 'svc-test-postgres-'));
  try {
    const script = [
      '#!/bin/sh',
      'set -e',
      'if [ -n "${POSTGRES_PASSWORD_FILE:-}" ] && [ -z "${POSTGRES_PASSWORD:-}" ]; then',
      '  POSTGRES_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE"); export POSTGRES_PASSWORD',
      'fi',
      `exec ${original.map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(' ')} "$@"`,
      '',
    ].join('\n');
    await writeFile(join(context, 'password-file-entrypoint.sh'), script, { mode: 0o755 });
    await writeFile(join(context, 'Dockerfile'), `FROM ${baseImage}\nCOPY password-file-entrypoint.sh /usr/local/bin/password-file-entrypoint.sh\nENTRYPOINT ["/usr/local/bin/password-file-entrypoint.sh"]\n`);
    await run('podman', ['build', '--format', 'docker', '-t', name, context]);
    return name;
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}
