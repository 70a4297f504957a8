/**
 * The audit trail for offline tools (`svc-reset-auth-password`, `svc-migrate-auth`, verification
 * scripts) that open the database directly instead of going through a server.
 *
 * @example
 * const storage = Storage.open(dbPath);
 * recordOfflineAuditEvent(storage, { event_type: 'offline_password_reset', action: 'svc-reset-auth-password', status: 'success', user_id: user.id, username: user.username });
 * const report = verifyAuditChainOffline(storage);
 */
import type { Storage } from '../storage/storage.js';
import { eventEntry, type AuditEvent } from './audit-trail.js';
import { verifyAuditChainSync, type ChainVerification } from './verify-chain.js';

/**
 * Appends one event to the audit trail at once (chained to the newest record, in its own
 * transaction), with category `system` and auth type `none` unless given. Never pass a password,
 * token or key in any field.
 */
export function recordOfflineAuditEvent(storage: Storage, event: AuditEvent): void {
  storage.audit.append([eventEntry(event)]);
}

/** Verifies the hash chain of the database behind `storage` and reports the first broken link. */
export function verifyAuditChainOffline(storage: Storage): ChainVerification {
  return verifyAuditChainSync(storage.audit);
}
