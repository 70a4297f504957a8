import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { describe, it } from 'vitest';
import { ServerMetrics } from '../observability/metrics.js';
import { ManualClock, systemClock } from '../runtime/clock.js';
import type { AuditStore } from '../storage/port/audit.js';
import { SqliteStorage } from '../storage/sqlite/sqlite-storage.js';
import { appendEntries } from './audit-entry.js';
import { AuditTrail, eventEntry, FLUSH_BATCH_SIZE } from './audit-trail.js';
import { verifyAuditChain } from './verify-chain.js';

const DAY = 86_400_000;

async function withStorage(work: (storage: SqliteStorage, databasePath: string) => void | Promise<void>): Promise<void> {
  const home = await mkdtemp(join(tmpdir(), 'svc-audit-trail-'));
  const databasePath = join(home, 'auth.db');
  const storage = SqliteStorage.open(databasePath);
  try {
    await work(storage, databasePath);
  } finally {
    await storage.close();
    await rm(home, { recursive: true, force: true });
  }
}

describe('AuditTrail', () => {
  it('queues records without writing and writes them in one batch on flush or close (in this thread)', async () => {
    await withStorage(async (storage) => {
      const trail = new AuditTrail(storage.audit, 90);
      for (let i = 0; i < 10; i += 1) trail.recordEvent({ event_type: 'test', action: `a${i}`, status: 'success' });
      assert.equal((await storage.audit.count()), 0, 'nothing written on the request path');
      await trail.flush();
      assert.equal((await storage.audit.count()), 10);
      trail.recordEvent({ event_type: 'test', action: 'last', status: 'success' });
      await trail.close();
      assert.equal((await storage.audit.count()), 11, 'close writes what is queued');
      assert.equal((await verifyAuditChain(storage.audit)).ok, true);
    });
  });

  it('prunes records past the retention period, keeps an anchor so the rest still verifies, and records the pruning', async () => {
    await withStorage(async (storage) => {
      const now = Date.now();
      const old = Array.from({ length: 30 }, (_, i) => eventEntry({ event_type: 'old', action: 'x', status: 'success' }, now - 100 * DAY + i));
      const young = Array.from({ length: 5 }, (_, i) => eventEntry({ event_type: 'young', action: 'x', status: 'success' }, now - DAY + i));
      await appendEntries(storage.audit, old);
      await appendEntries(storage.audit, young);
      const clock = new ManualClock(now - 50 * DAY);
      const trail = new AuditTrail(storage.audit, 90, { thread: false }, clock);
      assert.equal(await trail.prune(), 0, 'nothing is past the retention period yet at the clock\'s time');
      clock.set(now);
      assert.equal(await trail.prune(), 30);
      await trail.close();
      assert.equal((await storage.audit.count()), 6, 'five young records and the pruning event');
      const strings = storage.database.prepare("SELECT value FROM audit_strings WHERE value IN ('old', 'young')").pluck().all();
      assert.deepEqual(strings, ['young'], 'the strings only pruned records used are pruned too');
      const report = (await verifyAuditChain(storage.audit));
      assert.equal(report.ok, true, JSON.stringify(report));
      assert.equal(report.checked, 6);
      // Deleting the oldest remaining record without moving the anchor is detected.
      const first = storage.database.prepare('SELECT min(id) FROM audit_entries').pluck().get() as number;
      storage.database.prepare('DELETE FROM audit_entries WHERE id = ?').run(first);
      assert.equal((await verifyAuditChain(storage.audit)).reason, 'previous_hash_mismatch');
    });
  });
});

describe('AuditTrail with its writer thread', () => {
  it('writes batches on its own connection, chained to what is stored; flush waits for the commit', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-audit-thread-'));
    const path = join(home, 'auth.db');
    const storage = SqliteStorage.open(path);
    try {
      await appendEntries(storage.audit, [eventEntry({ event_type: 'before', action: 'x', status: 'success' }, Date.now())]);
      const trail = new AuditTrail(storage.audit, 90, { thread: true, databasePath: path });
      for (let i = 0; i < 1500; i += 1) trail.recordEvent({ event_type: 'threaded', action: `a${i}`, status: 'success' });
      await trail.flush();
      assert.equal((await storage.audit.count()), 1501);
      trail.recordEvent({ event_type: 'threaded', action: 'last', status: 'success' });
      await trail.close();
      assert.equal((await storage.audit.count()), 1502);
      const report = (await verifyAuditChain(storage.audit));
      assert.deepEqual([report.ok, report.checked], [true, 1502]);
    } finally {
      await storage.close();
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('AuditTrail with its writer thread', () => {
  it('writes through the thread, which starts from the TypeScript sources as well as from the build', async () => {
    await withStorage(async (storage, databasePath) => {
      const errors: unknown[] = [];
      const log = { error: (...args: unknown[]) => errors.push(args), warn: () => undefined, info: () => undefined, debug: () => undefined };
      const trail = new AuditTrail(storage.audit, 90, { thread: true, databasePath }, systemClock, { log: log as unknown as FastifyBaseLogger });
      for (let i = 0; i < 5; i += 1) trail.recordEvent({ event_type: 'threaded', action: `a${i}`, status: 'success' });
      await trail.flush();
      await trail.close();
      assert.deepEqual(errors, [], 'the writer thread failed and the trail fell back to this thread');
      assert.equal(await storage.audit.count(), 5);
      assert.equal((await verifyAuditChain(storage.audit)).ok, true);
    });
  });
});

describe('AuditTrail when its writer thread cannot work', () => {
  it('falls back to writing on the main thread; a flush never hangs', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-audit-thread-gone-'));
    const storage = SqliteStorage.open(join(home, 'auth.db'));
    try {
      // The thread is pointed at a path it cannot open, so it dies at start.
      const trail = new AuditTrail(storage.audit, 90, { thread: true, databasePath: join(home, 'missing-dir', 'x', '\u0000bad.db') });
      for (let i = 0; i < 10; i += 1) trail.recordEvent({ event_type: 'fallback', action: `a${i}`, status: 'success' });
      // The flush resolves only once the ten are written, which the dead thread cannot do: by now the
      // trail has seen the thread end and fallen back, so the late record is written here directly.
      await trail.flush();
      assert.equal(await storage.audit.count(), 10);
      trail.recordEvent({ event_type: 'fallback', action: 'late', status: 'success' });
      await trail.flush();
      await trail.close();
      assert.equal((await storage.audit.count()), 11);
      assert.equal((await verifyAuditChain(storage.audit)).ok, true);
    } finally {
      await storage.close();
      await rm(home, { recursive: true, force: true });
    }
  });
});

/** A store whose appends wait until the test releases them: a writer that has fallen behind. */
function heldStore(inner: AuditStore): { store: AuditStore; release: () => void; appendsStarted: () => number } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let started = 0;
  const store: AuditStore = {
    append: async (batch, link, genesisHash) => {
      started += 1;
      await gate;
      return inner.append(batch, link, genesisHash);
    },
    search: (filter, offset, limit) => inner.search(filter, offset, limit),
    exportPage: (filter, before, limit) => inner.exportPage(filter, before, limit),
    distinctValues: (column, from, to, limit) => inner.distinctValues(column, from, to, limit),
    openChainReader: () => inner.openChainReader(),
    pruneOlderThan: (before, batch, now) => inner.pruneOlderThan(before, batch, now),
    pruneUnusedStrings: () => inner.pruneUnusedStrings(),
    count: () => inner.count(),
  };
  return { store, release, appendsStarted: () => started };
}

const droppedMetric = async (metrics: ServerMetrics): Promise<number> => Number(/^svc_audit_dropped_total (\d+)$/m.exec(await metrics.render())?.[1]);

describe('AuditTrail when its writer falls behind', () => {
  it('holds at most maxQueued records, drops and counts the rest, and records an audit_dropped event once the writer commits again', async () => {
    await withStorage(async (storage) => {
      const held = heldStore(storage.audit);
      const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
      const trail = new AuditTrail(held.store, 90, { thread: false }, clock, { maxQueued: 1000 });
      const metrics = new ServerMetrics({ processMetrics: false });
      trail.onDrop((count) => metrics.recordAuditDropped(count));
      const drops: number[] = [];
      trail.onDrop((count) => drops.push(count));

      for (let i = 0; i < 600; i += 1) trail.recordEvent({ event_type: 'load', action: `first${i}`, status: 'success' });
      const firstFlush = trail.flush();
      assert.equal(held.appendsStarted(), 1, 'the first batch is with the (stuck) writer');
      assert.equal(trail.held, 600, 'records being written still count against the bound');
      clock.advance(1000);
      for (let i = 0; i < 600; i += 1) trail.recordEvent({ event_type: 'load', action: `second${i}`, status: 'success' });
      assert.equal(trail.held, 1000, 'memory stays bounded');
      assert.equal(trail.droppedTotal, 200);
      assert.equal(drops.length, 200);
      assert.equal(await droppedMetric(metrics), 200, 'the metric counts every dropped record');
      assert.equal(await storage.audit.count(), 0, 'nothing was written while the writer was held');

      held.release();
      await firstFlush;
      await trail.flush();
      await trail.close();
      assert.equal(await storage.audit.count(), 1001, 'every admitted record plus one audit_dropped event');
      const { hits } = await storage.audit.search({ timeFrom: 0, timeTo: Number.MAX_SAFE_INTEGER, eventType: ['audit_dropped'] }, 0, 10);
      assert.equal(hits.length, 1);
      const event = hits[0]!;
      assert.equal(event.status, 'failure');
      assert.deepEqual(JSON.parse(event.details ?? 'null'), {
        dropped: 200,
        first_dropped_at: '2026-01-01T00:00:01.000Z',
        last_dropped_at: '2026-01-01T00:00:01.000Z',
        limit: 1000,
      });
      const actions = (await storage.audit.search({ timeFrom: 0, timeTo: Number.MAX_SAFE_INTEGER, eventType: ['load'] }, 0, 2000)).hits.map((hit) => hit.action);
      assert.equal(actions.filter((action) => action.startsWith('first')).length, 600, 'records admitted before the overload are all kept');
      assert.equal(actions.filter((action) => action.startsWith('second')).length, 400, 'the newest records are the ones dropped');
      assert.equal((await verifyAuditChain(storage.audit)).ok, true);
    });
  });

  it('reports drops even when no batch commits before the trail closes', async () => {
    await withStorage(async (storage) => {
      const held = heldStore(storage.audit);
      const trail = new AuditTrail(held.store, 90, { thread: false }, new ManualClock(0), { maxQueued: 10 });
      for (let i = 0; i < 25; i += 1) trail.recordEvent({ event_type: 'load', action: `a${i}`, status: 'success' });
      assert.equal(trail.droppedTotal, 15);
      const closing = trail.close();
      held.release();
      await closing;
      const { hits } = await storage.audit.search({ timeFrom: 0, timeTo: Number.MAX_SAFE_INTEGER, eventType: ['audit_dropped'] }, 0, 10);
      assert.deepEqual(hits.map((hit) => JSON.parse(hit.details ?? 'null').dropped), [15]);
      assert.equal(await storage.audit.count(), 11);
      assert.equal((await verifyAuditChain(storage.audit)).ok, true);
    });
  });

  it('drops nothing while the writer keeps up, however many records pass through', async () => {
    await withStorage(async (storage) => {
      const trail = new AuditTrail(storage.audit, 90, { thread: false }, new ManualClock(0), { maxQueued: FLUSH_BATCH_SIZE * 2 });
      for (let round = 0; round < 5; round += 1) {
        for (let i = 0; i < FLUSH_BATCH_SIZE; i += 1) trail.recordEvent({ event_type: 'load', action: `r${round}`, status: 'success' });
        await trail.flush();
      }
      await trail.close();
      assert.equal(trail.droppedTotal, 0);
      assert.equal(await storage.audit.count(), FLUSH_BATCH_SIZE * 5);
    });
  });
});
