/**
 * Runs the real `svc-local` binary in a child process, for tests that need several processes, a
 * restart or a `kill -9`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { entryPoint, nodeArguments } from './node-command.js';
import { seedSecuritySettings, storageConfigOfEnvironment, type TestSecuritySettings } from './security-settings.js';
import { backendEnvironment } from './test-storage.js';

/** The `svc-local` entry point (the TypeScript source in tests; start it with {@link nodeArguments}). */
export const svcLocalPath = entryPoint('../bin/svc-local', import.meta.url);

/** A running `svc-local` process. */
export interface ServerProcess {
  readonly baseUrl: string;
  readonly child: ChildProcess;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL (a crash) and wait for exit. */
  kill(): Promise<void>;
}

/**
 * Starts `svc-local --port 0` with `env` (which must set SVC_HOME or the SVC_AUTH_* paths) and waits
 * until it prints its address. In a PostgreSQL test run, processes started with one `SVC_HOME`
 * share one database (see `test-storage.ts`).
 *
 * @param options.securitySettings - brute-force settings stored first in a fresh database: by
 *   default limits no test reaches; `'production'` keeps the real defaults.
 */
export async function startServerProcess(
  env: Record<string, string>,
  args: readonly string[] = [],
  options: { securitySettings?: TestSecuritySettings } = {},
): Promise<ServerProcess> {
  const fullEnv = { ...(await backendEnvironment(env['SVC_HOME'], env)), ...env };
  const storage = storageConfigOfEnvironment(fullEnv);
  if (storage !== null) await seedSecuritySettings(storage, options.securitySettings);
  const child = spawn(process.execPath, nodeArguments(svcLocalPath, ['--port', '0', '--log-level', 'error', ...args]), {
    env: { PATH: process.env['PATH'] ?? '', ...fullEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stopWith = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc-local did not start within 60 s; stderr: ${stderr}`));
    }, 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /svc listening on (http:\/\/\S+)/.exec(stdout);
      if (match !== null) {
        clearTimeout(timer);
        resolve({ baseUrl: match[1] as string, child, stderr: () => stderr, stop: () => stopWith('SIGTERM'), kill: () => stopWith('SIGKILL') });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`svc-local exited with ${code} before listening; stderr: ${stderr}`));
    });
  });
}
