/**
 * `npm run test:containers`: the container image and the bundled compose files, built and run with
 * podman (`.ci/run` runs it after `npm test`). Separate from `vitest.config.ts` so `npm test` stays
 * free of container tooling.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'containers',
    include: ['test/src/containers/**/*.test.ts'],
    // Builds the images once (svc, the proxy, PostgreSQL reading POSTGRES_PASSWORD_FILE) for every file.
    globalSetup: ['test/src/containers/global-setup.ts'],
    environment: 'node',
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    // Building the image compiles the project inside it: minutes, not seconds.
    testTimeout: 1_200_000,
    hookTimeout: 1_200_000,
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
  },
});
