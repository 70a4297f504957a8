import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { MAX_READING_AGE_MS, SqliteChangeFeed } from './change-feed.js';
import { openDatabase, type Database } from './database.js';
import { SqliteStorage } from './sqlite-storage.js';

describe('SqliteChangeFeed', () => {
  let home: string;
  let db: Database;
  let otherProcess: BetterSqlite3.Database;
  const commitElsewhere = () => otherProcess.prepare("UPDATE users SET updated_at = updated_at + 1 WHERE id = 'u'").run();

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-tracker-'));
    db = openDatabase(join(home, 'auth.db'));
    db.prepare("INSERT INTO users (id, username, password_hash, source, created_at, updated_at) VALUES ('u', 'u', 'x', 'local', 0, 0)").run();
    otherProcess = new BetterSqlite3(join(home, 'auth.db'));
  });
  afterAll(async () => {
    otherProcess.close();
    db.close();
    await rm(home, { recursive: true, force: true });
  });

  it("changes the epochs at once, within the same turn, for the storage's own committed writes", async () => {
    const storage = SqliteStorage.open(join(home, 'auth.db'));
    try {
      const heard: string[] = [];
      storage.changes.onChange((domain) => heard.push(domain));
      const before = storage.changes.current();
      await storage.settings.write('{}', 1);
      const after = storage.changes.current();
      assert.notEqual(after.access, before.access);
      assert.notEqual(after.bans, before.bans);
      assert.notEqual(after.models, before.models);
      assert.deepEqual(heard, ['access', 'bans', 'models']);
    } finally {
      await storage.close();
    }
  });

  it('leaves the epochs alone for a transaction that was rolled back', async () => {
    const storage = SqliteStorage.open(join(home, 'auth.db'));
    try {
      const before = storage.changes.current();
      await assert.rejects(
        storage.transaction(async (tx) => {
          await tx.settings.write('{"rolled":"back"}', 2);
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      await nextTurn();
      assert.deepEqual(storage.changes.current(), before);
    } finally {
      await storage.close();
    }
  });

  it("sees another connection's commit on the next turn of the event loop", async () => {
    const feed = new SqliteChangeFeed(db);
    const before = feed.current().access;
    await nextTurn();
    assert.equal(feed.current().access, before, 'nothing was committed');
    commitElsewhere();
    await nextTurn();
    assert.notEqual(feed.current().access, before);
  });

  it('reuses one reading within a turn (requests read together share it)', () => {
    const feed = new SqliteChangeFeed(db, { monotonicNow: () => 0 });
    const before = feed.current().access;
    commitElsewhere();
    assert.equal(feed.current().access, before);
  });

  it(`never reuses a reading older than ${MAX_READING_AGE_MS} ms, even within one turn`, () => {
    let now = 0;
    const feed = new SqliteChangeFeed(db, { monotonicNow: () => now });
    const before = feed.current().access;
    commitElsewhere();
    now = MAX_READING_AGE_MS;
    assert.equal(feed.current().access, before, 'a reading exactly at the limit is still used');
    now = MAX_READING_AGE_MS + 0.001;
    assert.notEqual(feed.current().access, before);
  });
});
