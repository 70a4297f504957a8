import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { ChangeTracker, MAX_READING_AGE_MS } from './change-tracker.js';
import { openDatabase, type Database } from './database.js';

describe('ChangeTracker', () => {
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

  it("changes the epoch at once for this process's own writes", () => {
    const tracker = new ChangeTracker(db);
    const before = tracker.epoch();
    tracker.markChanged();
    assert.notEqual(tracker.epoch(), before);
  });

  it("sees another connection's commit on the next turn of the event loop", async () => {
    const tracker = new ChangeTracker(db);
    const before = tracker.epoch();
    await nextTurn();
    assert.equal(tracker.epoch(), before, 'nothing was committed');
    commitElsewhere();
    await nextTurn();
    assert.notEqual(tracker.epoch(), before);
  });

  it('reuses one reading within a turn (requests read together share it)', () => {
    const tracker = new ChangeTracker(db, () => 0);
    const before = tracker.epoch();
    commitElsewhere();
    assert.equal(tracker.epoch(), before);
  });

  it(`never reuses a reading older than ${MAX_READING_AGE_MS} ms, even within one turn`, () => {
    let now = 0;
    const tracker = new ChangeTracker(db, () => now);
    const before = tracker.epoch();
    commitElsewhere();
    now = MAX_READING_AGE_MS;
    assert.equal(tracker.epoch(), before, 'a reading exactly at the limit is still used');
    now = MAX_READING_AGE_MS + 0.001;
    assert.notEqual(tracker.epoch(), before);
  });
});
