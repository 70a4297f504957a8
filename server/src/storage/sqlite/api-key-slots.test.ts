import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { describe, it } from 'vitest';
import { sqliteDigestPrefix } from '../migrations/047-api-key-lookup-slots.js';
import { candidateSlots, HIGHEST_RANGE_START, LOOKUP_SLOT_PROBES, lookupSlotRange } from './api-key-slots.js';

const INT64_MAX = 0x7fff_ffff_ffff_ffffn;
const INT64_MIN = -0x8000_0000_0000_0000n;

/** A 32-byte digest whose first 8 bytes are `prefix` (hex), the rest random. */
const digestStarting = (prefix: string): Buffer => Buffer.concat([Buffer.from(prefix, 'hex'), randomBytes(24)]);

describe('API key lookup slots', () => {
  it("Should take a digest's first 8 bytes as a signed big-endian integer for its own slot", () => {
    assert.equal(lookupSlotRange(digestStarting('0000000000000000')).first, 0n);
    assert.equal(lookupSlotRange(digestStarting('0000000000000102')).first, 258n);
    assert.equal(lookupSlotRange(digestStarting('8000000000000000')).first, INT64_MIN);
    assert.equal(lookupSlotRange(digestStarting('ffffffffffffffff')).first, -1n);
  });

  it('Should give every digest a range of eight consecutive slots that holds its own', () => {
    for (const prefix of ['0000000000000000', '8000000000000000', 'ffffffffffffffff', '7ffffffffffffff7', '7ffffffffffffff8', '7fffffffffffffff']) {
      const digest = digestStarting(prefix);
      const own = digest.readBigInt64BE(0);
      const { first, last } = lookupSlotRange(digest);
      assert.equal(last - first, BigInt(LOOKUP_SLOT_PROBES - 1), prefix);
      assert.ok(first <= own && own <= last && last <= INT64_MAX, prefix);
      assert.deepEqual(candidateSlots(digest), Array.from({ length: LOOKUP_SLOT_PROBES }, (_, step) => first + BigInt(step)), prefix);
    }
  });

  it('Should shift the range down for the eight highest slots, which have no successors', () => {
    assert.deepEqual(lookupSlotRange(digestStarting('7ffffffffffffff7')), { first: HIGHEST_RANGE_START - 1n, last: INT64_MAX - 1n });
    assert.deepEqual(lookupSlotRange(digestStarting('7ffffffffffffff8')), { first: HIGHEST_RANGE_START, last: INT64_MAX });
    assert.deepEqual(lookupSlotRange(digestStarting('7fffffffffffffff')), { first: HIGHEST_RANGE_START, last: INT64_MAX });
  });

  it("Should compute the same slot in migration 047's SQL as in the store", () => {
    const db = new BetterSqlite3(':memory:');
    try {
      db.defaultSafeIntegers(true);
      const inSql = db.prepare(`SELECT ${sqliteDigestPrefix} AS prefix FROM (SELECT hex(substr(?, 1, 8)) AS h)`).pluck();
      const edges = ['0000000000000000', '0000000000000001', '00000000000000ff', '7fffffffffffffff', '8000000000000000', '8000000000000001', 'ffffffffffffffff', '0123456789abcdef', 'fedcba9876543210'];
      const digests = [...edges.map(digestStarting), ...Array.from({ length: 200 }, () => randomBytes(32))];
      for (const digest of digests) assert.equal(inSql.get(digest), digest.readBigInt64BE(0), digest.toString('hex'));
    } finally {
      db.close();
    }
  });
});
