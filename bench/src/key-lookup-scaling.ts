/**
 * Does key verification slow down as keys pile up? Stores 100 keys in one database and 1,000,000 in
 * another (real SQLite files, or PostgreSQL databases) and times the verification of a presented key
 * without the in-process cache (format and checksum check, SHA-256, indexed lookup) for keys spread
 * over the whole table, after one warm-up pass over the sampled keys, in rounds that alternate the
 * two sizes. The keys are seeded by `key-seeding.ts` (bulk statements on PostgreSQL).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeyDigest, apiKeyShape, openStorage, type Storage, type StorageConfig } from '@svc/server/internals';
import { seedKeys } from './key-seeding.js';

/** Nanoseconds per uncached verification at each table size, and how long the large table took to fill. */
export interface KeyLookupReport {
  small: { keys: number; nanosPerVerification: number };
  large: { keys: number; nanosPerVerification: number };
  seedSeconds: number;
}

/** A fresh, empty database for one table size. */
export type KeyLookupDatabase = () => Promise<StorageConfig>;

/** Lookups timed per table size, in {@link ROUNDS} alternating rounds. */
const SAMPLE = 20_000;
const ROUNDS = 10;

/** One table size: its storage and the keys to present. */
interface Table {
  storage: Storage;
  keys: readonly string[];
}

/** Verifies `count` keys of `table`, spread over its sample, starting at `offset`; answers ns per verification. */
async function timeVerification(table: Table, count: number, offset: number): Promise<number> {
  let found = 0;
  const start = process.hrtime.bigint();
  for (let i = offset; i < offset + count; i += 1) {
    const key = table.keys[(i * 7919) % table.keys.length] as string;
    if (apiKeyShape(key) !== 'malformed' && (await table.storage.keys.findByDigest(apiKeyDigest(key))) !== null) found += 1;
  }
  const elapsed = Number(process.hrtime.bigint() - start);
  if (found < count) throw new Error('a stored key was not found');
  return elapsed / count;
}

/**
 * Times both sizes in alternating rounds (small first, then large first, …) after a warm-up pass
 * over every sampled key, so both are measured in steady state and drift on a shared machine hits
 * both alike; each size keeps its best round.
 */
async function timeAlternating(small: Table, large: Table): Promise<{ small: number; large: number }> {
  for (const table of [small, large]) await timeVerification(table, table.keys.length, 0);
  const best = { small: Number.POSITIVE_INFINITY, large: Number.POSITIVE_INFINITY };
  const perRound = SAMPLE / ROUNDS;
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
    for (const size of order) best[size] = Math.min(best[size], await timeVerification(size === 'small' ? small : large, perRound, round * perRound));
  }
  return best;
}

/** Opens `where` with one owner and `count` seeded keys, keeping every `keepEvery`-th to present. */
async function seededTable(where: StorageConfig, count: number, keepEvery: number): Promise<Table> {
  const storage = await openStorage(where);
  try {
    const userId = randomUUID();
    await storage.users.create({ id: userId, username: 'bench', passwordHash: 'x', source: 'local', permissions: [], mustChangePassword: false, now: Date.now() });
    return { storage, keys: await seedKeys(storage, where, { userId, count, keepEvery }) };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/**
 * Runs the comparison at 100 and `largeCount` keys, each in a database of its own: SQLite files
 * in a temporary directory, or the databases `database` creates (PostgreSQL).
 */
export async function benchmarkKeyLookup(largeCount = 1_000_000, database?: KeyLookupDatabase): Promise<KeyLookupReport> {
  const home = await mkdtemp(join(tmpdir(), 'svc-bench-keys-'));
  const fresh = database ?? (async (): Promise<StorageConfig> => ({ kind: 'sqlite', path: join(home, `${randomUUID()}.db`) }));
  const tables: Table[] = [];
  try {
    const small = await seededTable(await fresh(), 100, 1);
    tables.push(small);
    const seedStart = process.hrtime.bigint();
    const large = await seededTable(await fresh(), largeCount, Math.max(1, Math.floor(largeCount / 10_000)));
    const seedSeconds = Number(process.hrtime.bigint() - seedStart) / 1e9;
    tables.push(large);
    const nanos = await timeAlternating(small, large);
    return { small: { keys: 100, nanosPerVerification: nanos.small }, large: { keys: largeCount, nanosPerVerification: nanos.large }, seedSeconds };
  } finally {
    await Promise.all(tables.map((table) => table.storage.close()));
    await rm(home, { recursive: true, force: true });
  }
}
