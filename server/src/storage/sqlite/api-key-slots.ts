/**
 * Where an API key lives in SQLite's `api_keys` table (migration 047): its **lookup slot**, the
 * table's `INTEGER PRIMARY KEY`. The slot is the key digest's first 8 bytes read as a signed
 * big-endian 64-bit integer; the digest is SHA-256 output, so slots are uniformly spread and two
 * keys share one with probability about n² / 2⁶⁵ (3 × 10⁻⁸ at a million keys).
 *
 * Why not key the table by the digest itself: a `WITHOUT ROWID` table keyed by a 32-byte digest
 * stores whole rows in its interior pages (about 21 per 4 KiB page), so a million keys made a B-tree
 * five levels deep where a hundred made two. A rowid B-tree's interior cells hold only an integer
 * and a child pointer (about 240 per page): a million keys take three levels.
 *
 * Should two digests ever share their first 8 bytes, the later key takes the next free slot of its
 * range of {@link LOOKUP_SLOT_PROBES} consecutive ones (open addressing), and a lookup reads that whole range,
 * comparing the full digest in SQL: never a prefix match, and no "gap" rule that deletions could
 * break. Nothing here compares a secret in JavaScript.
 */

/** How many consecutive slots a digest may occupy, counting its own: the range a lookup reads. */
export const LOOKUP_SLOT_PROBES = 8;

/** The start of the highest range: the largest 64-bit integer minus 7. */
export const HIGHEST_RANGE_START = 0x7fff_ffff_ffff_ffffn - BigInt(LOOKUP_SLOT_PROBES - 1);

/** The first and last slot a key with `digest` may occupy: always {@link LOOKUP_SLOT_PROBES} of them. */
export interface SlotRange {
  first: bigint;
  last: bigint;
}

/**
 * The slots `digest` may occupy: its own and the next seven, or, for the eight highest slots (whose
 * successors do not exist), the eight highest.
 *
 * @example
 * const { first, last } = lookupSlotRange(apiKeyDigest(presented));
 * // SELECT … FROM api_keys WHERE slot BETWEEN :first AND :last AND +key_hash = :digest
 */
export function lookupSlotRange(digest: Buffer): SlotRange {
  const own = digest.readBigInt64BE(0);
  const first = own > HIGHEST_RANGE_START ? HIGHEST_RANGE_START : own;
  return { first, last: first + BigInt(LOOKUP_SLOT_PROBES - 1) };
}

/** Every slot of {@link lookupSlotRange}, in the order a new key tries them (it takes the first free one). */
export function candidateSlots(digest: Buffer): bigint[] {
  const { first } = lookupSlotRange(digest);
  return Array.from({ length: LOOKUP_SLOT_PROBES }, (_, step) => first + BigInt(step));
}
