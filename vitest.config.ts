/**
 * The test runner for every TypeScript test of every workspace: vitest, running the `.ts` sources
 * directly (no compile step first). `@svc/*` imports resolve to `src/` through the `svc-source`
 * export condition, and the processes the tests start run the sources through tsx
 * (`server/src/runtime/source-runtime.ts`). Each test file runs in its own process (`forks`), two at
 * a time, as the machines here have two cores.
 */
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const sourceConditions = ['svc-source', 'module', 'node', 'development|production'];

/** Tests of what only the SQLite backend has: its database file, the secret files it generates, the offline tools. */
const sqliteOnlyTests = [
  'test/src/security/secret-files.test.ts',
  'test/src/security/audit-verify-cli.test.ts',
  'test/src/security/offline-reset.test.ts',
  'test/src/security/hardening-offline.test.ts',
  'test/src/multi-process/crash-safety.test.ts',
  'test/src/multi-process/two-processes-secret-files.test.ts',
];

/** One project per workspace (and one for the browser tests), each with its own files. */
function project(name: string, include: string[], extra: Partial<TestProjectInlineConfiguration['test']> = {}): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: { name, include, ...extra },
  };
}

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions, externalConditions: ['svc-source'] } },
  test: {
    environment: 'node',
    pool: 'forks',
    maxWorkers: 2,
    // Real servers, real processes, argon2 and a real browser on two cores: generous limits, since
    // a timed-out test proves nothing about the code. No test asserts on time.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    env: { NODE_ENV: 'test' },
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
    coverage: {
      provider: 'v8',
      include: ['server/src/**/*.ts', 'sdk/src/**/*.ts', 'cli/src/**/*.ts'],
      exclude: ['**/*.test.ts', '**/generated/**', '**/testing/**', '**/type-tests.ts'],
      reporter: ['text-summary', 'text', 'html', 'json-summary'],
      reportsDirectory: 'coverage',
    },
    projects: [
      // The storage contract suite and the PostgreSQL adapter's tests need a real PostgreSQL: one per run.
      project('server', ['server/src/**/*.test.ts'], { globalSetup: ['server/src/testing/postgres-global-setup.ts'] }),
      project('sdk', ['sdk/src/**/*.test.ts']),
      project('cli', ['cli/src/**/*.test.ts']),
      project('bench', ['bench/src/**/*.test.ts'], { passWithNoTests: true }),
      project('test', ['test/src/**/*.test.ts'], { exclude: ['test/src/web/**', 'test/src/containers/**'], globalSetup: ['test/src/support/build-sdk-package.ts'] }),
      project('browser', ['test/src/web/**/*.test.ts'], { globalSetup: ['test/src/support/build-web-ui.ts'] }),
      // The route, security and multi-process tests once more, every server on PostgreSQL
      // (server/src/testing/test-storage.ts). Left out: the tests of what only SQLite has (its file,
      // the secret files it generates, the offline tools that open the file).
      project('server-postgres', ['server/src/routes/**/*.test.ts'], {
        env: { NODE_ENV: 'test', SVC_TEST_STORAGE: 'postgres' },
        globalSetup: ['server/src/testing/postgres-global-setup.ts'],
      }),
      project('test-postgres', ['test/src/security/**/*.test.ts', 'test/src/multi-process/**/*.test.ts'], {
        exclude: sqliteOnlyTests,
        env: { NODE_ENV: 'test', SVC_TEST_STORAGE: 'postgres' },
        globalSetup: ['server/src/testing/postgres-global-setup.ts'],
      }),
    ],
  },
});
