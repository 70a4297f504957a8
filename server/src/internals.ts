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
export { ModelsRepository, type ModelRecord, type ModelType, type ModelAbility, type ModelEngine, type StoredUpstream } from './storage/models-repository.js';
export { ModelFamiliesRepository, type ModelFamilyRecord } from './storage/model-families-repository.js';
export { describeModel, mayUseModel, type ModelDescription } from './models/model-access.js';
export type { Principal } from './auth/principal.js';
export type { PermissionSet } from './auth/permissions.js';
export { ServerMetrics, type BanKind } from './observability/metrics.js';
export { LogRedactor, LogBuffer, LogSink, type LogLine, type LogLevel } from './observability/log-buffer.js';
export { loadConfig, ConfigError, secretStrengthBits, SECRET_MIN_BITS, SECRET_ADVICE, PASSWORD_MAX_LENGTH, type ServerConfig, type Environment } from './config.js';
export { resolveSecret, type SecretOptions } from './secrets.js';
export { ApiError } from './errors.js';
export { assertPasswordAcceptable } from './crypto/password-policy.js';
export { allPermissions, legacyPermissionMap, normalizePermissions, type NormalizedPermissions, type Permission, type PermissionInput } from './auth/permissions.js';
export { recordOfflineAuditEvent, verifyAuditChainOffline } from './audit/offline.js';
export type { AuditEvent } from './audit/audit-trail.js';
export type { ChainVerification } from './audit/verify-chain.js';
export { AuditRepository, type AuditFilter, type ChainAnchor } from './storage/audit-repository.js';
export { auditFields, chainHash, canonicalEncoding, GENESIS_HASH, type AuditEntry, type StoredAuditEntry } from './audit/audit-entry.js';
export { BruteForceRepository, type ActiveBan, type BruteForceEntry, type BruteForceScope } from './storage/brute-force-repository.js';
export { canonicalIp } from './http/ip-address.js';
export { SqliteUsageStore, immediateGate, type UsageConnections } from './storage/sqlite/usage-store.js';
export type { UsageTotal, UsageQuery, UsageStore } from './storage/port/usage.js';
