/**
 * Resources that live for one callback: a temporary `SVC_HOME` directory, or a test server. Each is
 * cleaned up when the callback ends, whether it succeeded or not.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestServerOptions } from './hooks.js';
import { startTestServer, type TestServer } from './test-server.js';

/**
 * Creates an empty directory under the system temporary directory, runs `work` with its path and
 * then deletes the directory.
 *
 * @param prefix - the start of the directory's name (for example `svc-r26-`).
 * @returns what `work` returned.
 */
export async function withTempHome<T>(prefix: string, work: (home: string) => Promise<T>): Promise<T> {
  const home = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await work(home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/**
 * Starts a test server with a fresh home ({@link startTestServer}), runs `work` with it and then
 * closes it.
 *
 * @returns what `work` returned.
 */
export async function withTestServer<T>(work: (server: TestServer) => Promise<T>): Promise<T>;
/**
 * Starts a test server ({@link startTestServer}) with `options`, runs `work` with it and then closes it.
 *
 * @param options - passed to {@link startTestServer}.
 * @returns what `work` returned.
 */
export async function withTestServer<T>(options: TestServerOptions, work: (server: TestServer) => Promise<T>): Promise<T>;
export async function withTestServer<T>(
  first: TestServerOptions | ((server: TestServer) => Promise<T>),
  second?: (server: TestServer) => Promise<T>,
): Promise<T> {
  const [options, work] = typeof first === 'function' ? [{}, first] : [first, second as (server: TestServer) => Promise<T>];
  const server = await startTestServer(options);
  try {
    return await work(server);
  } finally {
    await server.close();
  }
}
