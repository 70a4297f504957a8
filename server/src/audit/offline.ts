/**
 * The audit trail for offline tools (`svc-reset-auth-password`, `svc-migrate-auth`, verification
 * scripts) that open the storage directly instead of going through a server.
 *
 * @example
 * const storage = await openStorage({ kind: 'sqlite', path: dbPath });
 * await recordOfflineAuditEvent(storage, { event_type: 'offline_password_reset', action: 'svc-reset-auth-password', status: 'success', user_id: user.id, username: user.username });
 * const report = await verifyAuditChainOffline(storage);
 */
import { systemClock, type Clock } from '../runtime/clock.js';
import type { Storage } from '../storage/port/index.js';
import { appendEntries } from './audit-entry.js';
import { eventEntry, type AuditEvent } from './audit-trail.js';
import { verifyAuditChain, type ChainVerification } from './verify-chain.js';

/**
 * Appends one event to the audit trail at once (chained to the newest record, in its own
 * transaction), with category `system` and auth type `none` unless given. Never pass a password,
 * token or key in any field.
 */
export function recordOfflineAuditEvent(storage: Pick<Storage, 'audit'>, event: AuditEvent, clock: Clock = systemClock): Promise<void> {
  return appendEntries(storage.audit, [eventEntry(event, clock.now())]);
}

/** Verifies the hash chain of the database behind `storage` and reports the first broken link. */
export function verifyAuditChainOffline(storage: Pick<Storage, 'audit'>): Promise<ChainVerification> {
  return verifyAuditChain(storage.audit);
}
