import assert from 'node:assert/strict';
import pg from 'pg';
import { afterEach, describe, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../testing/postgres-database.js';
import { latestVersion, migrations, type Migration } from '../migrations/index.js';
import { StorageSchemaError } from '../port/errors.js';
import { PostgresMigrator } from './migrator.js';

/** Every released migration's number, and the newest. */
const releasedVersions = migrations.map((migration) => migration.version).sort((a, b) => a - b);
const latest = latestVersion();
import { connectionConfig } from './postgres-storage.js';

const databases: TestDatabase[] = [];
afterEach(async () => {
  for (const database of databases.splice(0)) await database.drop();
});

async function emptyDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase({ empty: true });
  databases.push(database);
  return database;
}

async function query<Row extends object>(url: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const migrator = (url: string, options: ConstructorParameters<typeof PostgresMigrator>[1] = {}): PostgresMigrator =>
  new PostgresMigrator(connectionConfig({ url }), options);

describe('the PostgreSQL migrator', () => {
  it('five migrators started together on an empty database apply each migration exactly once', async () => {
    const { url } = await emptyDatabase();
    const results = await Promise.all(Array.from({ length: 5 }, () => migrator(url).migrate()));
    const applied = results.flatMap((result) => result.applied).sort((a, b) => a - b);
    assert.deepEqual(applied, migrations.map((migration) => migration.version));
    assert.equal(results.filter((result) => result.applied.length > 0).length, 1);
    for (const result of results) assert.equal(result.current, latest);
    const ledger = await query<{ version: number }>(url, 'SELECT version FROM schema_migrations ORDER BY version');
    assert.deepEqual(ledger.map((row) => row.version), releasedVersions);
  });

  it('reports what it would apply without applying it', async () => {
    const { url } = await emptyDatabase();
    assert.deepEqual(await migrator(url).status(), { current: 0, latest, applied: releasedVersions });
    assert.deepEqual(await query(url, "SELECT 1 FROM information_schema.tables WHERE table_name = 'users'"), []);
    await migrator(url).migrate();
    assert.deepEqual(await migrator(url).status(), { current: latest, latest, applied: [] });
    assert.deepEqual((await migrator(url).migrate()).applied, []);
  });

  it('refuses a schema newer than this server, and changes nothing', async () => {
    const { url } = await emptyDatabase();
    await migrator(url).migrate();
    await query(url, "INSERT INTO schema_migrations (version, name, checksum) VALUES (99, '099-future', 'x')");
    const older = migrator(url, { migrations: migrations.slice(0, 3) });
    await assert.rejects(older.migrate(), (error: unknown) => {
      assert.ok(error instanceof StorageSchemaError);
      assert.match(error.message, /the database schema \(version 99\) is newer than this server \(version 3\); upgrade svc/);
      return true;
    });
  });

  it('refuses a released migration edited after it was applied', async () => {
    const { url } = await emptyDatabase();
    await migrator(url).migrate();
    const edited: Migration[] = migrations.map((migration) => (migration.version === 3 ? { ...migration, postgres: `${migration.postgres}\n-- edited` } : migration));
    await assert.rejects(migrator(url, { migrations: edited }).migrate(), /migration 003-brute-force-and-audit was changed after it was applied/);
  });

  it('applies a later migration merged with a lower number than the newest applied one', async () => {
    const { url } = await emptyDatabase();
    const step = (version: number): Migration => ({ version, name: `0${version}-step`, sql: '', postgres: `CREATE TABLE step_${version} (id integer)` });
    // Numbers no released migration uses: 900 applied first, then 899 merged in later.
    await migrator(url, { migrations: [...migrations, step(900)] }).migrate();
    assert.deepEqual((await migrator(url, { migrations: [...migrations, step(899), step(900)] }).migrate()).applied, [899]);
  });

  it('rolls a failing migration back whole and says which one failed', async () => {
    const { url } = await emptyDatabase();
    const broken: Migration = { version: 901, name: '901-broken', sql: '', postgres: 'CREATE TABLE half_done (id integer); SELECT no_such_function();' };
    await assert.rejects(migrator(url, { migrations: [...migrations, broken] }).migrate(), (error: unknown) => {
      assert.ok(error instanceof StorageSchemaError);
      assert.match(error.message, /migration 901-broken failed on PostgreSQL/);
      return true;
    });
    assert.deepEqual(await query(url, "SELECT 1 FROM information_schema.tables WHERE table_name = 'half_done'"), []);
    assert.deepEqual((await query<{ version: number }>(url, 'SELECT max(version) AS version FROM schema_migrations'))[0], { version: latest });
  });
});
