/**
 * A PostgreSQL database of its own for one test (or one `describe`), copied from the run's migrated
 * template (`CREATE DATABASE … TEMPLATE`, a tenth of a second), dropped afterwards. Needs the
 * `postgres-global-setup.ts` global setup in the test's vitest project.
 */
import pg from 'pg';
import { withDatabase } from './postgres-cluster.js';

/** A test's database. */
export interface TestDatabase {
  /** Its URL (holds the password: never print it). */
  readonly url: string;
  /** Drops it, closing whatever connections remain. */
  drop(): Promise<void>;
}

let created = 0;

/**
 * A new database, migrated (a copy of the template) unless `empty` is set.
 *
 * @example
 * const database = await createTestDatabase();
 * const storage = await openPostgresStorage({ url: database.url });
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  // Loaded here, not at the top: the testing helpers are imported by the benchmarks too, outside vitest.
  const { inject } = await import('vitest');
  const maintenanceUrl = inject('svcPostgresUrl');
  const template = inject('svcPostgresTemplate');
  created += 1;
  const name = `svc_t_${process.pid}_${Date.now().toString(36)}_${created}`;
  await maintenance(maintenanceUrl, `CREATE DATABASE "${name}"${options.empty === true ? '' : ` TEMPLATE "${template}"`}`);
  return {
    url: withDatabase(maintenanceUrl, name),
    drop: () => maintenance(maintenanceUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

async function maintenance(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
