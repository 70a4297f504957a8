/**
 * vitest global setup of the projects whose tests use PostgreSQL: starts one server for the run
 * ({@link startPostgresCluster}: local, or `SVC_TEST_DATABASE_URL`), migrates a template database
 * once, and hands both to the tests through `provide` (read with {@link createTestDatabase}, which
 * gives each test a database of its own, copied from the template). Stops the server afterwards.
 */
import type { TestProject } from 'vitest/node';
import { PostgresMigrator } from '../storage/postgres/migrator.js';
import { connectionConfig } from '../storage/postgres/postgres-storage.js';
import { startPostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The maintenance URL of the run's PostgreSQL server (holds its password: never print it). */
    svcPostgresUrl: string;
    /** The migrated template database each test's database is copied from. */
    svcPostgresTemplate: string;
    /** The server's data directory when it is local, else '' (an external server's files are out of reach). */
    svcPostgresDataDirectory: string;
  }
}

/** Starts the server and the template; answers the teardown. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startPostgresCluster();
  try {
    const template = `svc_template_${process.pid}_${Date.now().toString(36)}`;
    const templateUrl = await cluster.createDatabase({ name: template });
    await new PostgresMigrator(connectionConfig({ url: templateUrl })).migrate();
    project.provide('svcPostgresUrl', cluster.url);
    project.provide('svcPostgresTemplate', template);
    project.provide('svcPostgresDataDirectory', cluster.dataDirectory ?? '');
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return () => cluster.stop();
}
