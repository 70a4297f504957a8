/** The SQLite usage store against real files: the shared suite, two storages on one file as two processes. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeUsageStore } from '../contract/usage-suite.js';
import type { UsageStore } from '../port/usage.js';
import { SqliteStorage } from './sqlite-storage.js';

describeUsageStore('sqlite', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'svc-usage-store-'));
  const path = join(directory, 'auth.db');
  const opened: SqliteStorage[] = [];
  /** Another process: a storage of its own on the same file. */
  const open = (): UsageStore => {
    const storage = SqliteStorage.open(path);
    opened.push(storage);
    return storage.usage;
  };
  return {
    store: open(),
    another: async () => open(),
    async destroy() {
      for (const storage of opened) await storage.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
});
