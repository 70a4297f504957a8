/**
 * Builds the images the container tests run, once per `npm run test:containers` (vitest's
 * globalSetup): svc (`Dockerfile`), the proxy (`deploy/haproxy`), and a PostgreSQL image that reads
 * `POSTGRES_PASSWORD_FILE` as the official image does. Each is skipped when its `SVC_TEST_*`
 * variable names one already built. The chosen names reach the test files through the environment
 * (the test workers start after this and inherit it).
 */
import { fileURLToPath } from 'node:url';
import { buildPasswordFilePostgres, ensureNodeHeadersInBaseImage, run } from './podman.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

export default async function buildImages(): Promise<void> {
  if (process.env['SVC_TEST_IMAGE'] === undefined) {
    await ensureNodeHeadersInBaseImage();
    await run('podman', ['build', '--format', 'docker', '-t', 'localhost/svc:test', '.'], { cwd: repositoryRoot });
    process.env['SVC_TEST_IMAGE'] = 'localhost/svc:test';
  }
  if (process.env['SVC_TEST_PROXY_IMAGE'] === undefined) {
    await run('podman', ['build', '--format', 'docker', '-t', 'localhost/svc-proxy:test', 'deploy/haproxy'], { cwd: repositoryRoot });
    process.env['SVC_TEST_PROXY_IMAGE'] = 'localhost/svc-proxy:test';
  }
  if (process.env['SVC_TEST_POSTGRES_IMAGE'] === undefined) {
    const base = process.env['SVC_TEST_POSTGRES_BASE_IMAGE'] ?? 'docker.io/library/postgres:15';
    process.env['SVC_TEST_POSTGRES_IMAGE'] = await buildPasswordFilePostgres(base);
  }
}
