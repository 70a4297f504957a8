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
 * Should two digests ever share their first 8 bytes, the later key takes the next free slot among
 * {@link LOOKUP_SLOT_PROBES} consecutive ones (open addressing), and a lookup reads that whole range,
 * comparing the full digest in SQL: never a prefix match, and no "gap" rule that deletions could
 * break. Nothing here compares a secret in JavaScript.
 */

/** How many consecutive slots a digest may occupy, counting its own: the range a lookup reads. */
export const LOOKUP_SLOT_PROBES = 8;

const INT64_MAX = 0x7fff_ffff_ffff_ffffn;

/** The first and last slot a key with `digest` may occupy (the last is clamped at the largest integer). */
export interface SlotRange {
  first: bigint;
  last: bigint;
}

/**
 * The slots `digest` may occupy.
 *
 * @example
 * const { first, last } = lookupSlotRange(apiKeyDigest(presented));
 * // SELECT … FROM api_keys WHERE slot BETWEEN :first AND :last AND +key_hash = :digest
 */
export function lookupSlotRange(digest: Buffer): SlotRange {
  const first = digest.readBigInt64BE(0);
  const last = first > INT64_MAX - BigInt(LOOKUP_SLOT_PROBES - 1) ? INT64_MAX : first + BigInt(LOOKUP_SLOT_PROBES - 1);
  return { first, last };
}

/** Every slot of {@link lookupSlotRange}, in the order a new key tries them (duplicates at the clamp are harmless). */
export function candidateSlots(digest: Buffer): bigint[] {
  const { first, last } = lookupSlotRange(digest);
  return Array.from({ length: LOOKUP_SLOT_PROBES }, (_, step) => (first + BigInt(step) > last ? last : first + BigInt(step)));
}
