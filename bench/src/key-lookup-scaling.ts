/**
 * Does key verification slow down as keys pile up? Stores 100 and then 1,000,000 keys in a real
 * SQLite file (or the PostgreSQL database it is given) and times the verification of a presented
 * key without the in-process cache (format and checksum check, SHA-256, indexed lookup) for keys
 * spread over the whole table, after one warm-up pass over the sampled keys. The keys are seeded by
 * `key-seeding.ts` (bulk statements on PostgreSQL).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeyDigest, apiKeyShape, openStorage, type Storage, type StorageConfig } from '@svc/server/internals';
import { seedKeys } from './key-seeding.js';

/** Nanoseconds per uncached verification at each table size. */
export interface KeyLookupReport {
  small: { keys: number; nanosPerVerification: number };
  large: { keys: number; nanosPerVerification: number };
}

const SAMPLE = 20_000;

async function timeVerification(storage: Storage, keys: readonly string[]): Promise<number> {
  let found = 0;
  const verify = async (key: string) => {
    if (apiKeyShape(key) !== 'malformed' && (await storage.keys.findByDigest(apiKeyDigest(key))) !== null) found += 1;
  };
  // Warm: every sampled key once, so both sizes are measured in steady state (pages mapped and cached).
  for (const key of keys) await verify(key);
  found = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < SAMPLE; i += 1) await verify(keys[(i * 7919) % keys.length] as string);
  const elapsed = Number(process.hrtime.bigint() - start);
  if (found < SAMPLE) throw new Error('a stored key was not found');
  return elapsed / SAMPLE;
}

/** Runs the comparison at 100 and `largeCount` keys, in a SQLite file of its own or in the database `where` names. */
export async function benchmarkKeyLookup(largeCount = 1_000_000, where?: StorageConfig): Promise<KeyLookupReport> {
  const home = await mkdtemp(join(tmpdir(), 'svc-bench-keys-'));
  const database: StorageConfig = where ?? { kind: 'sqlite', path: join(home, 'auth.db') };
  const storage = await openStorage(database);
  try {
    const userId = randomUUID();
    await storage.users.create({ id: userId, username: 'bench', passwordHash: 'x', source: 'local', permissions: [], mustChangePassword: false, now: Date.now() });
    const smallKeys = await seedKeys(storage, database, { userId, count: 100, keepEvery: 1 });
    const small = await timeVerification(storage, smallKeys);
    const largeKeys = await seedKeys(storage, database, { userId, count: largeCount - 100, keepEvery: Math.max(1, Math.floor(largeCount / 10_000)) });
    const large = await timeVerification(storage, largeKeys);
    return { small: { keys: 100, nanosPerVerification: small }, large: { keys: largeCount, nanosPerVerification: large } };
  } finally {
    await storage.close();
    await rm(home, { recursive: true, force: true });
  }
}
