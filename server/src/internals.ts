/**
 * Building blocks for svc's own offline tools and benchmarks (`@svc/server/internals`): direct access
 * to the storage and the key format. Not a stable API; applications use the HTTP API or the SDK.
 */
export { Storage } from './storage/storage.js';
export { apiKeyDigest, apiKeyDigestBase64, apiKeyShape, apiKeyDisplayPrefix, generateApiKey } from './crypto/api-key-format.js';
export { KeyEncryption } from './crypto/key-encryption.js';
export { hashPassword, verifyPassword } from './crypto/passwords.js';
