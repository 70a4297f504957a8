import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { openDatabase, schemaVersion } from './database.js';

const betterSqlite3Path = createRequire(import.meta.url).resolve('better-sqlite3');

describe('openDatabase', () => {
  it('creates the file 0600, in WAL mode, migrated to the current schema', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-db-'));
    try {
      const db = openDatabase(join(home, 'auth', 'auth.db'));
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
      assert.equal(db.pragma('user_version', { simple: true }), schemaVersion);
      assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
      db.close();
      assert.equal((await stat(join(home, 'auth', 'auth.db'))).mode & 0o777, 0o600);
      assert.equal((await stat(join(home, 'auth'))).mode & 0o777, 0o700);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('waits out another process that holds the fresh file longer than the busy timeout, then opens it', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-db-'));
    const path = join(home, 'auth.db');
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require(${JSON.stringify(betterSqlite3Path)}))(${JSON.stringify(path)});
         db.exec('BEGIN EXCLUSIVE'); console.log('locked');
         setTimeout(() => { db.exec('COMMIT'); db.close(); }, 6000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const [firstOutput] = (await once(holder.stdout, 'data')) as [Buffer];
      assert.equal(firstOutput.toString().trim(), 'locked');
      const db = openDatabase(path);
      assert.equal(db.pragma('user_version', { simple: true }), schemaVersion);
      db.close();
    } finally {
      holder.kill();
      await rm(home, { recursive: true, force: true });
    }
  });
});
