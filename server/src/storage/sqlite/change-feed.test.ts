import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { newAuditRecord } from '../contract/fixtures.js';
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

  it("changes the epochs of the domains it touched at once, within the same turn, for the storage's own committed writes", async () => {
    const storage = SqliteStorage.open(join(home, 'auth.db'));
    try {
      const heard: string[] = [];
      storage.changes.onChange((domain) => heard.push(domain));
      const before = storage.changes.current();
      await storage.users.setEnabled('u', false, 1);
      const after = storage.changes.current();
      assert.notEqual(after.access, before.access);
      assert.equal(after.bans, before.bans);
      assert.equal(after.models, before.models);
      assert.deepEqual(heard, ['access']);
    } finally {
      await storage.close();
    }
  });

  it('is moved neither by writes no cache depends on nor by audit appends and key touches, nor tells its listeners of them', async () => {
    const storage = SqliteStorage.open(join(home, 'auth.db'));
    try {
      await storage.keys.create({
        id: 'touched',
        userId: 'u',
        digest: Buffer.alloc(32, 7),
        keyPrefix: 'sk-svc-touc',
        ciphertext: Buffer.from('c'),
        encryptionKeyId: 'k1',
        name: 'touched',
        description: null,
        expiresAt: null,
        modelRestrictions: [{ type: 'all', value: null }],
        permissions: null,
        rateLimit: { maxFailures: null, windowSeconds: null, banSeconds: null },
        now: 1,
      });
      const heard: string[] = [];
      storage.changes.onChange((domain) => heard.push(domain));
      const observer = new SqliteChangeFeed(otherProcess);
      const before = observer.current();
      const ownBefore = storage.changes.current();
      await storage.keys.touchLastUsed('touched', 5);
      await storage.settings.write('{}', 1);
      // Digests are stored as 32 raw bytes: the links must be hex SHA-256, as the audit trail's are.
      const chainLink = (previous: string, encoding: string): string => createHash('sha256').update(`${previous}\n${encoding}`).digest('hex');
      await storage.audit.append([{ record: newAuditRecord(), encoding: 'own' }], chainLink, '0'.repeat(64));
      // The audit writer thread appends through a connection of its own.
      const auditWriter = SqliteStorage.open(join(home, 'auth.db'));
      try {
        await auditWriter.audit.append([{ record: newAuditRecord(), encoding: 'thread' }], chainLink, '0'.repeat(64));
      } finally {
        await auditWriter.close();
      }
      await nextTurn();
      assert.deepEqual(observer.current(), before, 'another connection saw no domain move');
      assert.deepEqual(storage.changes.current(), ownBefore, 'the writing storage saw no domain move');
      assert.deepEqual(heard, []);
      assert.ok(storage.changes.counters.dataVersionReads > 0);
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
