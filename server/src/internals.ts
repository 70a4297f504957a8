/**
 * Building blocks for svc's own offline tools and benchmarks (`@svc/server/internals`): direct access
 * to the storage and the key format. Not a stable API; applications use the HTTP API or the SDK.
 */
export { Storage } from './storage/storage.js';
export { UsersRepository, type UserRecord, type NewUser, type UserSource } from './storage/users-repository.js';
export { ApiKeysRepository, type ApiKeyRecord, type NewApiKey, type ApiKeyChanges, type ModelPermission } from './storage/api-keys-repository.js';
export { RefreshSessionsRepository, type RefreshTokenRecord } from './storage/refresh-sessions-repository.js';
export { ChangeTracker } from './storage/change-tracker.js';
export type { Database } from './storage/database.js';
export { apiKeyDigest, apiKeyDigestBase64, apiKeyShape, apiKeyDisplayPrefix, generateApiKey, type ApiKeyShape } from './crypto/api-key-format.js';
export { KeyEncryption, type DecryptFailure } from './crypto/key-encryption.js';
export { hashPassword, verifyPassword } from './crypto/passwords.js';
export { recordOfflineAuditEvent, verifyAuditChainOffline } from './audit/offline.js';
export type { AuditEvent } from './audit/audit-trail.js';
export type { ChainVerification } from './audit/verify-chain.js';
export { AuditRepository, type AuditFilter, type ChainAnchor } from './storage/audit-repository.js';
export { auditFields, chainHash, canonicalEncoding, GENESIS_HASH, type AuditEntry, type StoredAuditEntry } from './audit/audit-entry.js';
export { BruteForceRepository, type ActiveBan, type BruteForceEntry, type BruteForceScope } from './storage/brute-force-repository.js';
