/**
 * Which database the test helpers give the servers they start. The route, security and
 * multi-process tests run twice: once on SQLite (the `server` and `test` projects) and once on
 * PostgreSQL (the `server-postgres` and `test-postgres` projects, which set `SVC_TEST_STORAGE=postgres`
 * and start a real PostgreSQL in their global setup). On PostgreSQL every test home gets a database
 * of its own, shared by every process started with that home (several processes of one deployment),
 * and secrets of its own, since svc on PostgreSQL never generates them.
 */
import { randomBytes } from 'node:crypto';
import { createTestDatabase } from './postgres-database.js';

/** The backend of this test run. */
export type TestStorageBackend = 'sqlite' | 'postgres';

/** `SVC_TEST_STORAGE=postgres` selects PostgreSQL; anything else SQLite. */
export function testStorageBackend(): TestStorageBackend {
  return process.env['SVC_TEST_STORAGE'] === 'postgres' ? 'postgres' : 'sqlite';
}

const environments = new Map<string, Promise<Record<string, string>>>();

/**
 * The variables that point a server with test home `home` at its own PostgreSQL database:
 * `SVC_DATABASE_URL` and the two secrets, the same for every process of that home.
 */
export function postgresEnvironmentFor(home: string): Promise<Record<string, string>> {
  let environment = environments.get(home);
  if (environment === undefined) {
    environment = createTestDatabase().then((database) => ({
      SVC_DATABASE_URL: database.url,
      SVC_DATABASE_POOL_MAX: '4',
      SVC_AUTH_JWT_SECRET_KEY: randomBytes(32).toString('hex'),
      SVC_AUTH_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    }));
    environments.set(home, environment);
  }
  return environment;
}

/**
 * The variables a test server with `home` and `env` needs for this run's backend: none on SQLite,
 * or when `env` names a database already; else its PostgreSQL database.
 */
export async function backendEnvironment(home: string | undefined, env: Record<string, string | undefined> = {}): Promise<Record<string, string>> {
  if (testStorageBackend() === 'sqlite' || env['SVC_DATABASE_URL'] !== undefined || home === undefined) return {};
  return postgresEnvironmentFor(home);
}
