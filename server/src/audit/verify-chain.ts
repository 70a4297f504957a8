/**
 * Verifies the audit hash chain: every record's `prev_hash` must be the hash of the record before it
 * (or, for the first record, the pruning anchor's hash, or the genesis hash), and every record's
 * `hash` must be the hash of its own canonical encoding. Reports the first broken link.
 *
 * What it proves: no record was edited, inserted or removed in the middle or at the start without
 * rewriting every later hash. What it cannot prove alone: that the newest records were not cut off
 * or that the whole chain was not recomputed — compare `head_hash` with a copy kept elsewhere.
 */
import { chainHash, GENESIS_HASH } from './audit-entry.js';
import type { AuditStore } from '../storage/port/audit.js';

/** The outcome of a verification. */
export interface ChainVerification {
  ok: boolean;
  /** Records checked (up to and including the first broken one). */
  checked: number;
  /** The id of the first record whose link is broken, or null. */
  first_broken_id: number | null;
  /** Why that link is broken, or null. */
  reason: 'record_altered' | 'previous_hash_mismatch' | null;
  /** The hash of the newest record checked (the chain's head when ok), or null when empty. */
  head_hash: string | null;
}

const PAGE = 5000;

/**
 * Verifies the chain from one consistent snapshot of the store (a prune committed meanwhile cannot
 * fake a break), yielding to the event loop between pages.
 */
export async function verifyAuditChain(audit: AuditStore): Promise<ChainVerification> {
  const reader = await audit.openChainReader();
  try {
    let expectedPrevious = reader.anchor?.lastPrunedHash ?? GENESIS_HASH;
    let checked = 0;
    let head: string | null = null;
    for await (const page of reader.pages(PAGE)) {
      for (const record of page) {
        checked += 1;
        if (record.prev_hash !== expectedPrevious) return broken(checked, record.id, 'previous_hash_mismatch', head);
        if (chainHash(record.prev_hash, record) !== record.hash) return broken(checked, record.id, 'record_altered', head);
        expectedPrevious = record.hash;
        head = record.hash;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { ok: true, checked, first_broken_id: null, reason: null, head_hash: head };
  } finally {
    await reader.close();
  }
}

function broken(checked: number, id: number, reason: ChainVerification['reason'], head: string | null): ChainVerification {
  return { ok: false, checked, first_broken_id: id, reason, head_hash: head };
}
