import assert from 'node:assert/strict';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { describe, it } from 'vitest';
import { createTestDatabase } from '../../testing/postgres-database.js';
import { migrations } from './index.js';

/**
 * Tables only PostgreSQL has: the migration ledger, the audit chain head, and the dictionary of the
 * groups of fields its audit records are coded by (migration 045).
 */
const postgresOnly = new Set(['schema_migrations', 'audit_chain_head', 'audit_tuples']);

/**
 * The one table whose columns differ by design: the coded audit records (`audit_entries`, migrations
 * 035 and 045), laid out for each engine's row format. What both share is the view `audit_log` over
 * them, with the same columns in the same order; the table itself is left out of the comparison.
 * And one column: SQLite's `api_keys.slot` (migration 047), the key's place in SQLite's rowid B-tree;
 * the other columns of `api_keys` are the same on both, in the same order.
 */
function comparable(tables: Map<string, string[]>): Map<string, string[]> {
  return new Map(
    [...tables]
      .filter(([table]) => table !== 'audit_entries')
      .map(([table, columns]) => [table, table === 'api_keys' ? columns.filter((column) => column !== 'slot') : columns]),
  );
}

function sqliteColumns(): Map<string, string[]> {
  const db = new BetterSqlite3(':memory:');
  try {
    for (const migration of migrations) db.exec(migration.sql);
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY name").all();
    return new Map(tables.map(({ name }) => [name, db.prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?) ORDER BY cid').all(name).map((column) => column.name)]));
  } finally {
    db.close();
  }
}

async function postgresColumns(url: string): Promise<Map<string, string[]>> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string; column_name: string }>(
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position",
    );
    const tables = new Map<string, string[]>();
    for (const row of rows) tables.set(row.table_name, [...(tables.get(row.table_name) ?? []), row.column_name]);
    return tables;
  } finally {
    await client.end();
  }
}

describe('the two dialects of the migrations', () => {
  it('exist for every migration, and only 004 (cache epochs) and 045 (audit tuples), PostgreSQL only, are empty on SQLite', () => {
    for (const migration of migrations) {
      assert.ok(migration.postgres.trim().length > 0, `${migration.name} has no PostgreSQL dialect`);
      assert.equal(migration.sql.trim().length === 0, [4, 45].includes(migration.version), migration.name);
    }
  });

  it('give a fresh SQLite and a fresh PostgreSQL the same tables with the same columns in the same order', async () => {
    const database = await createTestDatabase();
    try {
      const postgres = await postgresColumns(database.url);
      const shared = new Map([...postgres].filter(([table]) => !postgresOnly.has(table)));
      assert.deepEqual(comparable(shared), comparable(sqliteColumns()));
    } finally {
      await database.drop();
    }
  });
});
