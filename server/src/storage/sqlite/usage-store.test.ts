/** The SQLite usage store against real files: the shared suite, two connections pairs as two processes. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeUsageStore } from '../contract/usage-suite.js';
import { openDatabase, type Database } from './database.js';
import { SqliteUsageStore, type UsageConnections } from './usage-store.js';

/** A gate that runs writes one after another, as the adapter's writer mutex does. */
const serialGate = (): UsageConnections['gate'] => {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    write<T>(work: () => T): Promise<T> {
      const run = tail.then(work);
      tail = run.catch(() => undefined);
      return run;
    },
  };
};

describeUsageStore('sqlite', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'svc-usage-store-'));
  const path = join(directory, 'auth.db');
  const opened: Database[] = [];
  const open = (): SqliteUsageStore => {
    const write = openDatabase(path);
    const read = openDatabase(path);
    opened.push(write, read);
    return new SqliteUsageStore({ read, write, gate: serialGate() });
  };
  return {
    store: open(),
    another: async () => open(),
    async destroy() {
      for (const db of opened) db.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
});
