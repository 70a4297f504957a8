/** The PostgreSQL usage store against a real server: the shared suite, several pools as several hosts. */
import pg from 'pg';
import { createTestDatabase } from '../../testing/postgres-database.js';
import { describeUsageStore } from '../contract/usage-suite.js';
import { Executor } from './executor.js';
import { connectionConfig } from './postgres-storage.js';
import { PostgresUsageStore } from './usage-store.js';

describeUsageStore('postgres', async () => {
  const database = await createTestDatabase();
  const pools: pg.Pool[] = [];
  const open = (): PostgresUsageStore => {
    const pool = new pg.Pool({ ...connectionConfig({ url: database.url }), max: 6 });
    pool.on('error', () => {});
    pools.push(pool);
    return new PostgresUsageStore(new Executor(pool, pool, { inTransaction: false, prepare: true }));
  };
  return {
    store: open(),
    another: async () => open(),
    async destroy() {
      for (const pool of pools) await pool.end();
      await database.drop();
    },
  };
});
