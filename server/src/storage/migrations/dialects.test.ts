import assert from 'node:assert/strict';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { describe, it } from 'vitest';
import { createTestDatabase } from '../../testing/postgres-database.js';
import { migrations } from './index.js';

/** Tables only PostgreSQL has: the migration ledger, the audit chain head. */
const postgresOnly = new Set(['schema_migrations', 'audit_chain_head']);

/**
 * The one table whose columns differ by design (migration 035): PostgreSQL orders `audit_entries`
 * by alignment and keeps the request id in two columns (`request_uuid`, `request_text`) where SQLite
 * has one `request_id` (a 16-byte BLOB or text). Compared as sets, the two request columns as one.
 */
function comparable(tables: Map<string, string[]>): Map<string, string[]> {
  const entries = tables.get('audit_entries');
  if (entries === undefined) return tables;
  const columns = entries.map((column) => (column === 'request_uuid' || column === 'request_text' ? 'request_id' : column));
  return new Map([...tables, ['audit_entries', [...new Set(columns)].sort()]]);
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
  it('exist for every migration, and only 004 (cache epochs, PostgreSQL only) is empty on SQLite', () => {
    for (const migration of migrations) {
      assert.ok(migration.postgres.trim().length > 0, `${migration.name} has no PostgreSQL dialect`);
      assert.equal(migration.sql.trim().length === 0, migration.version === 4, migration.name);
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
