import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { describe, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { openDatabase, openDatabaseReadOnly, schemaVersion } from './database.js';
import { migrations } from '../migrations/index.js';
import { SqliteStorage } from './sqlite-storage.js';

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

describe('openDatabaseReadOnly', () => {
  const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

  it('answers null for a missing file (not created) and for an empty one', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-db-ro-'));
    try {
      const missing = join(home, 'auth', 'auth.db');
      assert.equal(openDatabaseReadOnly(missing), null);
      assert.equal(existsSync(join(home, 'auth')), false);
      const empty = join(home, 'empty.db');
      new BetterSqlite3(empty).close();
      assert.equal(openDatabaseReadOnly(empty), null);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('reads a database written at schema version 1 as the current code sees it, without changing the file', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-db-ro-'));
    try {
      const path = join(home, 'auth.db');
      const old = new BetterSqlite3(path);
      old.pragma('journal_mode = WAL');
      old.exec((migrations[0] as { sql: string }).sql);
      old.pragma('user_version = 1');
      old.prepare("INSERT INTO users (id, username, password_hash, source, created_at, updated_at) VALUES ('u1', 'old-admin', 'x', 'setup', 1, 1)").run();
      old.close();
      const before = digest(path);
      const db = openDatabaseReadOnly(path);
      assert.ok(db);
      assert.equal(db.pragma('user_version', { simple: true }), schemaVersion);
      db.close();
      const storage = SqliteStorage.open(path, { readOnly: true });
      assert.ok(storage);
      try {
        assert.equal((await storage.users.findByUsername('OLD-ADMIN'))?.id, 'u1');
      } finally {
        await storage.close();
      }
      assert.equal(digest(path), before);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('refuses a database newer than the code', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-db-ro-'));
    try {
      const path = join(home, 'auth.db');
      const future = new BetterSqlite3(path);
      future.pragma(`user_version = ${schemaVersion + 1}`);
      future.close();
      assert.throws(() => openDatabaseReadOnly(path), /is newer than this server/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
