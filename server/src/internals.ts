/**
 * Building blocks for svc's own offline tools and benchmarks (`@svc/server/internals`): direct access
 * to the storage and the key format. Not a stable API; applications use the HTTP API or the SDK.
 */
export { openStorage, storageConfigOf, type StorageConfig, type OpenStorageOptions } from './storage/open-storage.js';
export { OFFLINE_TOOL_CONNECT_TIMEOUT_MS, OFFLINE_TOOL_WAIT_MS, openStorageForTool, whileNotReady } from './storage/offline-tool-storage.js';
export { SqliteStorage, type SqliteOpenOptions } from './storage/sqlite/sqlite-storage.js';
export type { Database } from './storage/sqlite/database.js';
export { SqliteChangeFeed } from './storage/sqlite/change-feed.js';
export type {
  Storage,
  StorageTx,
  StorageBackend,
  StorageLock,
  TransactionOptions,
  RowLock,
  UserStore,
  ApiKeyStore,
  SessionStore,
  BruteForceStore,
  SettingsStore,
  ModelStore,
  ModelFamilyStore,
  AuditStore,
  ChangeFeed,
  Migrator,
  MigrationStatus,
  UserSource,
  NewUser,
  NewApiKey,
  ApiKeyChanges,
  ModelRestriction,
  RefreshTokenRecord,
  ActiveBan,
  BruteForceEntry,
  BruteForceScope,
  AuditFilter,
  AuditColumn,
  AuditAppend,
  ChainLink,
  ChainReader,
  ChainAnchor,
  Epochs,
  CacheDomain,
  UserRecord as StoredUserRecord,
  ApiKeyRecord as StoredApiKeyRecord,
  ModelRecord as StoredModelRecord,
  ModelFamilyRecord as StoredModelFamilyRecord,
  AuditRecord,
  StoredAuditRecord,
  TableTransfer,
  TableImporter,
  TransferTable,
  TransferRow,
} from './storage/port/index.js';
export { StorageUnavailableError, StorageSchemaError, transferTables, primaryKeyOf } from './storage/port/index.js';
export { parseDatabaseUrl, redactDatabaseUrl, DatabaseUrlError, type DatabaseUrl } from './storage/database-url.js';
export { PostgresStorage, connectionConfig, type PostgresStorageConfig } from './storage/postgres/postgres-storage.js';
export { PostgresMigrator } from './storage/postgres/migrator.js';
export { userFromStore, userOrNull, apiKeyFromStore, apiKeyOrNull, modelRestrictions, type UserRecord, type ApiKeyRecord, type ModelPermission } from './auth/records.js';
export { apiKeyDigest, apiKeyDigestBase64, apiKeyShape, apiKeyDisplayPrefix, generateApiKey, type ApiKeyShape } from './crypto/api-key-format.js';
export { KeyEncryption, type DecryptFailure } from './crypto/key-encryption.js';
export { hashPassword, verifyPassword } from './crypto/passwords.js';
export type { ModelRecord, ModelFamilyRecord, ModelType, ModelAbility, ModelEngine } from './models/model-records.js';
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
export { eventEntry, type AuditEvent } from './audit/audit-trail.js';
export type { ChainVerification } from './audit/verify-chain.js';
export { auditFields, appendEntries, chainHash, canonicalEncoding, GENESIS_HASH, type AuditEntry, type StoredAuditEntry } from './audit/audit-entry.js';
export { systemClock, ManualClock, type Clock } from './runtime/clock.js';
export { canonicalIp } from './http/ip-address.js';
export type { UsageTotal, UsageQuery, UsageStore } from './storage/port/usage.js';
