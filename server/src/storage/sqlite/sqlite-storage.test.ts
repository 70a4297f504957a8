import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, it } from 'vitest';
import { StorageUnavailableError } from '../port/errors.js';
import type { ModelRecord, NewApiKey, NewUser } from '../port/index.js';
import { toStorageError } from './errors.js';
import { SqliteStorage, type SqliteOpenOptions } from './sqlite-storage.js';

async function withStorage(work: (storage: SqliteStorage, path: string) => Promise<void>, options: SqliteOpenOptions = {}): Promise<void> {
  const home = await mkdtemp(join(tmpdir(), 'svc-sqlite-storage-'));
  const path = join(home, 'auth.db');
  const storage = SqliteStorage.open(path, { ...options, readOnly: false });
  try {
    await work(storage, path);
  } finally {
    await storage.close();
    await rm(home, { recursive: true, force: true });
  }
}

const user = (id: string, username: string): NewUser => ({ id, username, passwordHash: 'x', source: 'local', permissions: ['admin'], mustChangePassword: false, now: 1 });
const key = (id: string, userId: string): NewApiKey => ({
  id,
  userId,
  digest: randomBytes(32),
  keyPrefix: 'sk-svc-abcd',
  ciphertext: Buffer.from('c'),
  encryptionKeyId: 'k1',
  name: id,
  description: null,
  expiresAt: null,
  modelRestrictions: [{ type: 'model_type', value: 'LLM' }],
  permissions: ['models:read'],
  rateLimit: { maxFailures: null, windowSeconds: null, banSeconds: null },
  now: 1,
});

describe('SqliteStorage transactions', () => {
  it('queues a root-level write issued while a transaction is open until it ends, and keeps it out of the transaction', async () => {
    await withStorage(async (storage) => {
      let rootWrite: Promise<void> | undefined;
      await assert.rejects(
        storage.transaction(async (tx) => {
          await tx.settings.write('{"from":"transaction"}', 1);
          rootWrite = storage.settings.write('{"from":"root"}', 2);
          assert.equal(await tx.settings.read(), '{"from":"transaction"}', 'the queued write did not land inside the transaction');
          throw new Error('roll back');
        }),
        /roll back/,
      );
      await rootWrite;
      assert.equal(await storage.settings.read(), '{"from":"root"}', 'the queued write ran after the rollback');
    });
  });

  it('lets root-level reads see only committed data while a transaction is open', async () => {
    await withStorage(async (storage) => {
      await storage.transaction(async (tx) => {
        await tx.settings.write('{"uncommitted":true}', 1);
        assert.equal(await storage.settings.read(), null, 'a root read saw an uncommitted write');
      });
      assert.equal(await storage.settings.read(), '{"uncommitted":true}');
    });
  });

  it('fails and rolls back, in strict mode, a transaction whose work awaited something other than its stores', async () => {
    await withStorage(
      async (storage) => {
        await assert.rejects(
          storage.transaction(async (tx) => {
            await tx.settings.write('{"held":"across a turn"}', 1);
            await nextTurn();
          }),
          /awaited something other than its stores/,
        );
        assert.equal(await storage.settings.read(), null);
        // The writer is free again.
        await storage.settings.write('{}', 2);
        assert.equal(await storage.settings.read(), '{}');
      },
      { transactionGuard: 'throw' },
    );
  });
});

describe('SqliteStorage outcomes', () => {
  it('answers taken names, missing owners and taken uids as outcomes, not exceptions', async () => {
    await withStorage(async (storage) => {
      assert.equal(await storage.users.exists(), false);
      assert.equal(await storage.users.create(user('u1', 'alice')), 'created');
      assert.equal(await storage.users.create(user('u2', 'ALICE')), 'username_taken', 'names are unique ignoring case');
      assert.equal(await storage.users.exists(), true);
      assert.equal(await storage.users.countEnabledHolding('admin'), 1);
      assert.equal(await storage.keys.create(key('k1', 'u1')), 'created');
      assert.equal(await storage.keys.create(key('k2', 'nobody')), 'owner_missing');
      const stored = await storage.keys.findById('k1');
      assert.deepEqual(stored?.modelRestrictions, [{ type: 'model_type', value: 'LLM' }]);
      assert.deepEqual(stored?.permissions, ['models:read']);
      assert.equal(await storage.keys.update('k1', { enabled: false }, 2), true);
      assert.equal(await storage.keys.update('missing', { enabled: false }, 2), false);
      const model: ModelRecord = {
        uid: 'm1',
        modelName: 'echo',
        modelType: 'LLM',
        engine: 'builtin',
        abilities: ['chat'],
        requiresSystemMessageFirst: false,
        dimensions: null,
        upstream: null,
        launchedBy: 'u1',
        createdAt: 1,
      };
      assert.equal(await storage.models.insert(model), 'created');
      assert.equal(await storage.models.insert(model), 'uid_taken');
      const family = { modelName: 'fam', modelType: 'LLM', abilities: ['chat'], requiresSystemMessageFirst: false, dimensions: null, description: null, definition: '{}', createdBy: null, createdAt: 1 };
      assert.equal(await storage.families.insert(family), 'created');
      assert.equal(await storage.families.insert(family), 'name_taken');
      assert.equal(await storage.users.delete('u1'), true);
      assert.equal(await storage.users.delete('u1'), false);
      assert.equal(await storage.keys.findById('k1'), null, 'keys go with their owner');
    });
  });
});

describe('SqliteStorage errors', () => {
  it('maps SQLite codes meaning "cannot be used now" to StorageUnavailableError and lets everything else through', () => {
    for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_IOERR_WRITE', 'SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_FULL', 'SQLITE_READONLY']) {
      assert.ok(toStorageError(Object.assign(new Error(code), { code })) instanceof StorageUnavailableError, code);
    }
    for (const error of [Object.assign(new Error('c'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }), new TypeError('a bug')]) {
      assert.equal(toStorageError(error), error);
    }
  });

  it('answers a ping of a database overwritten under it with StorageUnavailableError', async () => {
    await withStorage(async (storage, path) => {
      await storage.ping();
      for (const suffix of ['', '-wal', '-shm']) writeFileSync(path + suffix, randomBytes(8192));
      await assert.rejects(storage.ping(), StorageUnavailableError);
    });
  });
});
