/**
 * Storage contract: bulk transfer (`Storage.transfer`), on every backend. A deployment is populated
 * through the port on an SQLite file (what `svc-migrate-storage` reads), imported into the backend
 * under test, read back through the backend's own stores, and imported once more into another SQLite
 * file from the backend's rows (so each adapter's reader feeds the other's importer).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { canonicalEncoding, GENESIS_HASH, hashEncoded } from '../../audit/audit-entry.js';
import { verifyAuditChain } from '../../audit/verify-chain.js';
import { bookkeepingTables, primaryKeyOf, transferTables, type Storage, type TransferRow } from '../port/index.js';
import { SqliteStorage } from '../sqlite/sqlite-storage.js';
import { storageBackends, type StorageBackend, type StorageUnderTest } from './backends.js';
import { NOW, digestOf, newAuditRecord, newCounter, newFamily, newKey, newModel, newUser } from './fixtures.js';

/** A fresh SQLite file in a directory of its own. */
function sqliteFile(): { storage: SqliteStorage; path: string; remove(): Promise<void> } {
  const directory = mkdtempSync(join(tmpdir(), 'svc-transfer-'));
  const path = join(directory, 'auth.db');
  const storage = SqliteStorage.open(path);
  return {
    storage,
    path,
    async remove() {
      await storage.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

const sqliteBackend: StorageBackend = {
  name: 'sqlite',
  async open() {
    const file = sqliteFile();
    return { storage: file.storage, another: () => Promise.resolve(SqliteStorage.open(file.path)), destroy: () => file.remove() };
  },
};

const backends = storageBackends.some((backend) => backend.name === 'sqlite') ? storageBackends : [...storageBackends, sqliteBackend];

/** A deployment with a row in every table that matters, written through the port. */
async function populate(storage: Storage): Promise<{ userId: string; keyId: string; digest: Buffer }> {
  const user = newUser({ permissions: ['admin', 'models:list'] });
  assert.equal(await storage.users.create(user), 'created');
  const key = newKey(user.id);
  assert.equal(await storage.keys.create(key), 'created');
  const revoked = newKey(user.id);
  assert.equal(await storage.keys.create(revoked), 'created');
  await storage.transaction(async (tx) => {
    await tx.keys.keepTombstones({ keyId: revoked.id }, NOW);
    await tx.keys.delete(revoked.id);
  });
  await storage.sessions.createFamily('family-1', user.id, NOW, NOW + 86_400_000);
  await storage.sessions.addToken(digestOf('refresh-1'), 'family-1', NOW, NOW + 3_600_000);
  await storage.settings.write(JSON.stringify({ max_failures: 7 }), NOW);
  await storage.bruteForce.save(newCounter({ failures: 3, bannedUntil: NOW + 60_000 }));
  assert.equal(await storage.families.insert(newFamily()), 'created');
  assert.equal(await storage.models.insert(newModel({ launchedBy: user.id })), 'created');
  await storage.oidc.link('https://issuer.example', 'subject-1', user.id, NOW);
  const records = [newAuditRecord(), newAuditRecord({ user_id: user.id }), newAuditRecord()];
  await storage.audit.append(records.map((record) => ({ record, encoding: canonicalEncoding(record) })), hashEncoded, GENESIS_HASH);
  return { userId: user.id, keyId: key.id, digest: key.digest };
}

/** Copies every table of `from` into `to`; answers rows inserted per table. */
async function copy(from: Storage, to: Storage): Promise<Record<string, number>> {
  return to.transfer.importing(async (importer) => {
    const inserted: Record<string, number> = {};
    for (const table of transferTables) {
      let count = 0;
      for await (const page of from.transfer.pages(table, 2)) count += await importer.insertMissing(table, page);
      inserted[table.name] = count;
    }
    return inserted;
  });
}

/** A row as both adapters can agree on: booleans as 0/1, binary as hex. */
function neutral(row: TransferRow): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([column, value]) => [column, typeof value === 'boolean' ? Number(value) : Buffer.isBuffer(value) ? value.toString('hex') : value]),
  );
}

async function everyRow(storage: Storage): Promise<Record<string, Record<string, unknown>[]>> {
  const tables: Record<string, Record<string, unknown>[]> = {};
  for (const table of transferTables) {
    tables[table.name] = [];
    for await (const page of storage.transfer.pages(table, 3)) tables[table.name]?.push(...page.map(neutral));
  }
  return tables;
}

describe('storage contract: the transfer tables', () => {
  it('Should list every table of the schema, with its primary key', async () => {
    const file = sqliteFile();
    try {
      // The audit records are stored coded (audit_entries, audit_strings) and move through the view
      // audit_log, which reads them decoded (migration 035).
      const codedAudit = ['audit_entries', 'audit_strings'];
      const names = (
        file.storage.database.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]
      ).map((row) => row.name);
      assert.deepEqual([...transferTables.map((table) => table.name)].sort(), names.filter((name) => !bookkeepingTables.includes(name) && !codedAudit.includes(name)));
      for (const table of transferTables) {
        const stored = table.name === 'audit_log' ? 'audit_entries' : table.name;
        const columns = file.storage.database.prepare(`PRAGMA table_info("${stored}")`).all() as { name: string; pk: number }[];
        const key = columns.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk).map((column) => column.name);
        if (table.name === 'api_keys') {
          // SQLite keys the rows by their lookup slot (migration 047); the digest stays unique.
          assert.deepEqual(key, ['slot'], table.name);
          const unique = file.storage.database.prepare(`SELECT il.name FROM pragma_index_list('api_keys') l, pragma_index_info(l.name) il WHERE l."unique" = 1`).pluck().all();
          assert.ok(unique.includes('key_hash'), 'api_keys.key_hash is unique');
        } else {
          assert.deepEqual(key, table.primaryKey, table.name);
        }
      }
    } finally {
      await file.remove();
    }
  });
});

describe.each(backends)('storage contract ($name): bulk transfer', (backend) => {
  let under: StorageUnderTest;
  let source: ReturnType<typeof sqliteFile>;

  beforeEach(async () => {
    under = await backend.open();
    source = sqliteFile();
  });

  afterEach(async () => {
    await under.destroy();
    await source.remove();
  });

  it('Should import every row as stored, readable through the stores, the audit chain intact', async () => {
    const { userId, keyId, digest } = await populate(source.storage);
    const inserted = await copy(source.storage, under.storage);
    for (const table of transferTables) {
      assert.equal(await under.storage.transfer.count(table), await source.storage.transfer.count(table), table.name);
      assert.equal(inserted[table.name], await source.storage.transfer.count(table), table.name);
    }
    assert.deepEqual((await under.storage.users.findById(userId))?.permissions, (await source.storage.users.findById(userId))?.permissions);
    const key = await under.storage.keys.findById(keyId);
    assert.deepEqual(key?.ciphertext, (await source.storage.keys.findById(keyId))?.ciphertext);
    assert.equal((await under.storage.keys.findByDigest(digest))?.id, keyId);
    assert.equal(await under.storage.oidc.findUserId('https://issuer.example', 'subject-1'), userId);
    assert.equal(await under.storage.settings.read(), JSON.stringify({ max_failures: 7 }));
    const sourceChain = await verifyAuditChain(source.storage.audit);
    const copiedChain = await verifyAuditChain(under.storage.audit);
    assert.equal(copiedChain.ok, true);
    assert.equal(copiedChain.head_hash, sourceChain.head_hash);
    assert.deepEqual(await everyRow(under.storage), await everyRow(source.storage));
  });

  it('Should continue the imported audit chain on the next append', async () => {
    await populate(source.storage);
    await copy(source.storage, under.storage);
    const record = newAuditRecord();
    await under.storage.audit.append([{ record, encoding: canonicalEncoding(record) }], hashEncoded, GENESIS_HASH);
    const chain = await verifyAuditChain(under.storage.audit);
    assert.equal(chain.ok, true);
    assert.equal(chain.checked, 4);
    const ids: number[] = [];
    for await (const page of under.storage.transfer.pages(transferTables.find((table) => table.name === 'audit_log') ?? transferTables[0]!, 10)) ids.push(...page.map((row) => Number(row['id'])));
    assert.deepEqual(ids, [1, 2, 3, 4]);
  });

  it('Should insert only what is missing and never overwrite a row already there', async () => {
    const { userId } = await populate(source.storage);
    await copy(source.storage, under.storage);
    const users = transferTables.find((table) => table.name === 'users') ?? transferTables[0]!;
    const changed = await under.storage.transfer.importing((importer) =>
      importer.insertMissing(users, [{ id: userId, username: 'renamed', password_hash: 'x', source: 'local', enabled: 0, must_change_password: 0, token_version: 9, created_at: NOW, updated_at: NOW }]),
    );
    assert.equal(changed, 0);
    assert.equal((await under.storage.users.findById(userId))?.enabled, true);
    assert.deepEqual(Object.values(await copy(source.storage, under.storage)).filter((count) => count > 0), []);
  });

  it('Should commit nothing when the import fails part way', async () => {
    await populate(source.storage);
    await assert.rejects(
      under.storage.transfer.importing(async (importer) => {
        for (const table of transferTables.slice(0, 4)) for await (const page of source.storage.transfer.pages(table, 100)) await importer.insertMissing(table, page);
        throw new Error('stop here');
      }),
      /stop here/,
    );
    for (const table of transferTables) assert.equal(await under.storage.transfer.count(table), 0, table.name);
  });

  it("Should feed the other adapter's importer from its own rows", async () => {
    await populate(source.storage);
    await copy(source.storage, under.storage);
    const back = sqliteFile();
    try {
      await copy(under.storage, back.storage);
      assert.deepEqual(await everyRow(back.storage), await everyRow(source.storage));
      assert.equal((await verifyAuditChain(back.storage.audit)).ok, true);
      assert.deepEqual(
        (await everyRow(back.storage))['api_keys']?.map((row) => primaryKeyOf(transferTables[3]!, row)),
        (await everyRow(source.storage))['api_keys']?.map((row) => primaryKeyOf(transferTables[3]!, row)),
      );
    } finally {
      await back.remove();
    }
  });
});
