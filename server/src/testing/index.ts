/**
 * Test support for svc: real servers (in-process or as child processes) and HTTP fixtures. Exported
 * as `@svc/server/testing` for the cross-package tests.
 */
export { startTestServer, contractClient, type TestServer, type TestResponse, type RequestOptions, type ContractClient } from './test-server.js';
export { adminCredentials, login, setupAdmin, createUser, createKey, uniqueUsername, type LoggedInUser } from './fixtures.js';
export { startServerProcess, svcLocalPath, type ServerProcess } from './server-process.js';
export { entryPoint, nodeArguments, nodeShellCommand } from './node-command.js';
export { useServer, useServerWithAdmin, type ServerHandle, type ServerWithAdminHandle, type TestServerOptions } from './hooks.js';
export { assertError, assertLegacyDeprecation } from './assertions.js';
export { pollUntil, sleep } from './polling.js';
export { withTempHome, withTestServer } from './scoped.js';
export { API_KEY_FORMAT, BASE62, withCharacterChanged } from './api-key-text.js';
export { startFakeUpstream, type FakeUpstream, type FakeUpstreamMode, type ReceivedRequest } from './fake-upstream.js';
export { testSecuritySettings, seedSecuritySettings, type TestSecuritySettings } from './security-settings.js';
export { startPostgresCluster, startLocalPostgresCluster, withDatabase, type PostgresCluster } from './postgres-cluster.js';
export { createTestDatabase, type TestDatabase } from './postgres-database.js';
export { ManualClock, systemClock, type Clock } from '../runtime/clock.js';
export {
  openDatabaseAccess,
  withDatabaseAccess,
  holdWriteLock,
  breakDatabase,
  replaceWithEmptyDatabase,
  searchStoredData,
  signingSecretOf,
  encryptionKeyOf,
  postgresUrlOf,
  sqliteDatabasePath,
  storageConfigOfHome,
  type DatabaseAccess,
  type Statement,
  type StoredDataSearch,
} from './database-access.js';
export { testStorageBackend, type TestStorageBackend } from './test-storage.js';
