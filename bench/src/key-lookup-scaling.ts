/**
 * Does key verification slow down as keys pile up? Stores 100 and then 1,000,000 keys in a real
 * SQLite file and times the verification of a presented key without the in-process cache (format
 * and checksum check, SHA-256, indexed lookup) for keys spread over the whole table, after one
 * warm-up pass over the sampled keys.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeyDigest, apiKeyShape, generateApiKey, openStorage, type Storage } from '@svc/server/internals';

/** Nanoseconds per uncached verification at each table size. */
export interface KeyLookupReport {
  small: { keys: number; nanosPerVerification: number };
  large: { keys: number; nanosPerVerification: number };
}

const SAMPLE = 20_000;

async function fill(storage: Storage, userId: string, count: number, keep: string[], keepEvery: number): Promise<void> {
  const insert = (from: number, to: number) => storage.transaction(async (tx) => {
    for (let i = from; i < to; i += 1) {
      const key = generateApiKey();
      if (i % keepEvery === 0) keep.push(key);
      await tx.keys.create({
        id: randomUUID(),
        userId,
        digest: apiKeyDigest(key),
        keyPrefix: key.slice(0, 11),
        ciphertext: Buffer.alloc(1),
        encryptionKeyId: 'bench',
        name: 'bench',
        description: null,
        expiresAt: null,
        modelRestrictions: [],
        permissions: null,
        rateLimit: { maxFailures: null, windowSeconds: null, banSeconds: null },
        now: Date.now(),
      });
    }
  });
  for (let from = 0; from < count; from += 50_000) await insert(from, Math.min(count, from + 50_000));
}

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

/** Runs the comparison at 100 and `largeCount` keys. */
export async function benchmarkKeyLookup(largeCount = 1_000_000): Promise<KeyLookupReport> {
  const home = await mkdtemp(join(tmpdir(), 'svc-bench-keys-'));
  const storage = await openStorage({ kind: 'sqlite', path: join(home, 'auth.db') });
  try {
    const userId = randomUUID();
    await storage.users.create({ id: userId, username: 'bench', passwordHash: 'x', source: 'local', permissions: [], mustChangePassword: false, now: Date.now() });
    const smallKeys: string[] = [];
    await fill(storage, userId, 100, smallKeys, 1);
    const small = await timeVerification(storage, smallKeys);
    const largeKeys: string[] = [];
    await fill(storage, userId, largeCount - 100, largeKeys, Math.max(1, Math.floor(largeCount / 10_000)));
    const large = await timeVerification(storage, largeKeys);
    return { small: { keys: 100, nanosPerVerification: small }, large: { keys: largeCount, nanosPerVerification: large } };
  } finally {
    await storage.close();
    await rm(home, { recursive: true, force: true });
  }
}
