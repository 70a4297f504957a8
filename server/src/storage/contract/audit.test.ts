/** Storage contract: the audit trail and its hash chain, on every backend. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { canonicalEncoding, GENESIS_HASH, hashEncoded } from '../../audit/audit-entry.js';
import type { AuditFilter, AuditRecord, Storage, StoredAuditRecord } from '../port/index.js';
import { storageBackends, type StorageUnderTest } from './backends.js';
import { NOW, newAuditRecord } from './fixtures.js';

const append = (storage: Storage, records: readonly AuditRecord[]): Promise<void> =>
  storage.audit.append(
    records.map((record) => ({ record, encoding: canonicalEncoding(record) })),
    hashEncoded,
    GENESIS_HASH,
  );

const everything: AuditFilter = { timeFrom: 0, timeTo: Number.MAX_SAFE_INTEGER };

/** Walks the chain through a snapshot reader, as `svc-audit-verify` does; answers the records read. */
async function verifiedChain(storage: Storage, pageSize = 7): Promise<StoredAuditRecord[]> {
  const reader = await storage.audit.openChainReader();
  const records: StoredAuditRecord[] = [];
  try {
    let previous = reader.anchor?.lastPrunedHash ?? GENESIS_HASH;
    for await (const page of reader.pages(pageSize)) {
      for (const record of page) {
        assert.equal(record.prev_hash, previous, `record ${record.id} links to its predecessor`);
        const { id: _id, prev_hash: _previous, hash, ...fields } = record;
        assert.equal(hashEncoded(record.prev_hash, canonicalEncoding(fields)), hash, `record ${record.id} is unaltered`);
        previous = hash;
        records.push(record);
      }
    }
  } finally {
    await reader.close();
  }
  return records;
}

describe.each(storageBackends)('storage contract ($name): audit', (backend) => {
  let under: StorageUnderTest;
  beforeEach(async () => {
    under = await backend.open();
  });
  afterEach(() => under.destroy());

  it('appends chained records that read back exactly as given', async () => {
    const records = [
      newAuditRecord({ timestamp: NOW, latency_ms: 0.1 + 0.2, details: '{"a":"b"}', http_status: null }),
      newAuditRecord({ timestamp: NOW + 1, username: 'émilie \u2014 "quoted" \\ back', latency_ms: null, client_ip: null }),
    ];
    await append(under.storage, records);
    await append(under.storage, []);
    const chain = await verifiedChain(under.storage);
    assert.deepEqual(chain.map((record) => record.id), [1, 2]);
    assert.equal(chain[0]?.prev_hash, GENESIS_HASH);
    assert.deepEqual(chain.map(({ id: _id, prev_hash: _previous, hash: _hash, ...fields }) => fields), records);
    assert.equal(await under.storage.audit.count(), 2);
  });

  it('stores every spelling of a client IP and request id as given (compact forms only where they read back identical)', async () => {
    const clientIps = ['10.0.0.1', '255.255.255.255', '192.168.1.20', '0.0.0.0', '010.0.0.1', '::ffff:10.0.0.1', '2001:db8::1', '10.0.0', 'unknown', ''];
    const requestIds = ['0b7c4f2e-5e1d-4f6a-9c3b-2d8e7f1a6b4c', '0B7C4F2E-5E1D-4F6A-9C3B-2D8E7F1A6B4C', '{0b7c4f2e-5e1d-4f6a-9c3b-2d8e7f1a6b4c}', 'req-1', ''];
    const records = clientIps.map((client_ip, index) => newAuditRecord({ timestamp: NOW + index, client_ip, request_id: requestIds[index % requestIds.length] ?? null }));
    await append(under.storage, records);
    const chain = await verifiedChain(under.storage);
    assert.deepEqual(chain.map(({ id: _id, prev_hash: _previous, hash: _hash, ...fields }) => fields), records);
    const { audit } = under.storage;
    const byIp = await audit.search({ ...everything, clientIp: '10.0.0' }, 0, 20);
    assert.deepEqual(byIp.hits.map((hit) => hit.client_ip), ['10.0.0', '::ffff:10.0.0.1', '010.0.0.1', '10.0.0.1']);
    assert.equal((await audit.search({ ...everything, clientIp: '255.255' }, 0, 20)).total, 1);
    assert.deepEqual(await audit.distinctValues('client_ip', 0, Number.MAX_SAFE_INTEGER, 20), [...clientIps].sort());
  });

  it('searches newest first with substring and exact filters, counts all matches, and pages', async () => {
    await append(under.storage, [
      newAuditRecord({ timestamp: NOW, username: 'Alice', status: 'success', category: 'auth' }),
      newAuditRecord({ timestamp: NOW + 1, username: 'bob', status: 'failure', category: 'auth' }),
      newAuditRecord({ timestamp: NOW + 2, username: 'alicia', status: 'success', category: 'request', api_key_name: '100%_real' }),
      newAuditRecord({ timestamp: NOW + 3, username: 'carol', status: 'success', category: 'request' }),
    ]);
    const { audit } = under.storage;
    const byUser = await audit.search({ ...everything, user: 'ALI' }, 0, 10);
    assert.equal(byUser.total, 2);
    assert.deepEqual(byUser.hits.map((hit) => hit.username), ['alicia', 'Alice']);
    assert.deepEqual((await audit.search({ ...everything, apiKeyName: '%_' }, 0, 10)).hits.map((hit) => hit.username), ['alicia'], 'LIKE wildcards are literal');
    assert.equal((await audit.search({ ...everything, apiKeyName: '_x' }, 0, 10)).total, 0);
    const exact = await audit.search({ ...everything, status: ['success'], category: ['request', 'nothing'] }, 0, 10);
    assert.deepEqual(exact.hits.map((hit) => hit.username), ['carol', 'alicia']);
    const page = await audit.search({ timeFrom: NOW + 1, timeTo: NOW + 3 }, 1, 1);
    assert.equal(page.total, 3);
    assert.deepEqual(page.hits.map((hit) => hit.username), ['alicia']);
    assert.deepEqual(await audit.search({ ...everything, user: 'a\u0000' }, 0, 10), { hits: [], total: 0 });
    assert.deepEqual((await audit.search({ ...everything, status: ['x\u0000', 'failure'] }, 0, 10)).hits.map((hit) => hit.username), ['bob']);
  });

  it('exports by keyset pages and lists distinct values of a column in a time range', async () => {
    await append(
      under.storage,
      Array.from({ length: 7 }, (_, index) => newAuditRecord({ timestamp: NOW + Math.floor(index / 2), username: `user-${index % 3}`, model_type: index === 0 ? 'LLM' : null })),
    );
    const { audit } = under.storage;
    const seen: number[] = [];
    let before: { timestamp: number; id: number } | null = null;
    for (;;) {
      const page: StoredAuditRecord[] = await audit.exportPage(everything, before, 3);
      seen.push(...page.map((record) => record.id));
      const last = page.at(-1);
      if (last === undefined || page.length < 3) break;
      before = { timestamp: last.timestamp, id: last.id };
    }
    assert.deepEqual(seen, [7, 6, 5, 4, 3, 2, 1]);
    assert.deepEqual(await audit.distinctValues('username', NOW, NOW + 10, 10), ['user-0', 'user-1', 'user-2']);
    assert.deepEqual(await audit.distinctValues('username', NOW, NOW + 10, 2), ['user-0', 'user-1']);
    assert.deepEqual(await audit.distinctValues('model_type', NOW, NOW + 10, 10), ['LLM']);
    assert.deepEqual(await audit.distinctValues('username', NOW + 100, NOW + 200, 10), []);
  });

  it('prunes a prefix older than the cut-off, moves the anchor, and the rest still verifies and grows', async () => {
    await append(
      under.storage,
      Array.from({ length: 10 }, (_, index) => newAuditRecord({ timestamp: NOW + index * 1000 })),
    );
    assert.equal(await under.storage.audit.pruneOlderThan(NOW + 4000, 3, NOW + 99), 3);
    assert.equal(await under.storage.audit.pruneOlderThan(NOW + 4000, 100, NOW + 99), 1);
    assert.equal(await under.storage.audit.pruneOlderThan(NOW + 4000, 100, NOW + 99), 0);
    await append(under.storage, [newAuditRecord({ timestamp: NOW + 20_000 })]);
    const chain = await verifiedChain(under.storage);
    assert.deepEqual(chain.map((record) => record.id), [5, 6, 7, 8, 9, 10, 11]);
    const reader = await under.storage.audit.openChainReader();
    assert.equal(reader.anchor?.lastPrunedId, 4);
    await reader.close();
  });

  it('three hosts appending at once keep one contiguous chain that verifies', async () => {
    const hosts = [under.storage, await under.another(), await under.another()];
    await Promise.all(
      hosts.flatMap((host, writer) =>
        Array.from({ length: 8 }, (_, batch) =>
          append(
            host,
            Array.from({ length: 25 }, (_, index) => newAuditRecord({ timestamp: NOW + batch, username: `writer-${writer}`, request_id: `${writer}-${batch}-${index}` })),
          ),
        ),
      ),
    );
    const chain = await verifiedChain(under.storage, 64);
    assert.equal(chain.length, 3 * 8 * 25);
    assert.deepEqual(
      chain.map((record) => record.id),
      Array.from({ length: chain.length }, (_, index) => index + 1),
    );
    for (let writer = 0; writer < 3; writer += 1) assert.equal(chain.filter((record) => record.username === `writer-${writer}`).length, 200);
  });

  it('prunes the strings only pruned records used, and every writer forgets the ids it cached', async () => {
    const other = await under.another();
    // 'gone-reason' is the last string the first append adds: the id a new string may be given once it is pruned.
    await append(under.storage, [newAuditRecord({ timestamp: NOW, username: 'gone-user', endpoint: '/v1/gone', reason: 'gone-reason' })]);
    await append(under.storage, [newAuditRecord({ timestamp: NOW + 10, username: 'kept-user' })]);
    assert.equal(await under.storage.audit.pruneUnusedStrings(), 0, 'nothing before a pruning');
    assert.equal(await other.audit.pruneOlderThan(NOW + 5, 100, NOW + 20), 1);
    // SQLite deletes three strings; PostgreSQL (migration 045) the caller and the shape holding them.
    assert.ok((await other.audit.pruneUnusedStrings()) > 0, 'gone-user, /v1/gone and gone-reason');
    assert.equal(await other.audit.pruneUnusedStrings(), 0);
    await append(other, [newAuditRecord({ timestamp: NOW + 11, username: 'newcomer', endpoint: '/v1/new', reason: 'new-reason' })]);
    // The first host cached the pruned strings' ids: it must intern them again.
    await append(under.storage, [newAuditRecord({ timestamp: NOW + 12, username: 'gone-user', endpoint: '/v1/gone', reason: 'gone-reason' })]);
    const chain = await verifiedChain(under.storage);
    assert.deepEqual(
      chain.map((record) => [record.username, record.endpoint, record.reason]),
      [['kept-user', '/v1/models', null], ['newcomer', '/v1/new', 'new-reason'], ['gone-user', '/v1/gone', 'gone-reason']],
    );
    assert.deepEqual(await under.storage.audit.distinctValues('username', 0, Number.MAX_SAFE_INTEGER, 10), ['gone-user', 'kept-user', 'newcomer']);
  });

  it('a chain reader keeps its snapshot while another host prunes and appends', async () => {
    await append(
      under.storage,
      Array.from({ length: 6 }, (_, index) => newAuditRecord({ timestamp: NOW + index })),
    );
    const reader = await under.storage.audit.openChainReader();
    try {
      const other = await under.another();
      assert.equal(await other.audit.pruneOlderThan(NOW + 3, 100, NOW), 3);
      await append(other, [newAuditRecord({ timestamp: NOW + 50 })]);
      const ids: number[] = [];
      for await (const page of reader.pages(2)) ids.push(...page.map((record) => record.id));
      assert.equal(reader.anchor, null);
      assert.deepEqual(ids, [1, 2, 3, 4, 5, 6]);
    } finally {
      await reader.close();
    }
  });
});
