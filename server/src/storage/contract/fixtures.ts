/** Records for the storage contract suite: valid values, unique per call. */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AuditRecord, BruteForceEntry, ModelFamilyRecord, ModelRecord, NewApiKey, NewUser } from '../port/index.js';

/** A fixed moment, so no test depends on the real time. */
export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

let counter = 0;
const next = (): number => (counter += 1);

/** A new account (enabled; `admin` when asked). */
export function newUser(overrides: Partial<NewUser> = {}): NewUser {
  const n = next();
  return {
    id: randomUUID(),
    username: `user-${n}-${randomBytes(3).toString('hex')}`,
    passwordHash: `$argon2id$v=19$m=19456,t=2,p=1$fixture${n}`,
    source: 'local',
    permissions: ['models:list'],
    mustChangePassword: false,
    now: NOW,
    ...overrides,
  };
}

/** A digest as the key service makes it. */
export const digestOf = (text: string): Buffer => createHash('sha256').update(text).digest();

/** A new key of `userId`. */
export function newKey(userId: string, overrides: Partial<NewApiKey> = {}): NewApiKey {
  const n = next();
  return {
    id: randomUUID(),
    userId,
    digest: digestOf(`sk-svc-fixture-${n}-${randomUUID()}`),
    keyPrefix: `sk-svc-${n}`,
    ciphertext: randomBytes(48),
    encryptionKeyId: 'fingerprint-1',
    name: `key ${n}`,
    description: null,
    expiresAt: null,
    modelRestrictions: [{ type: 'all', value: null }],
    permissions: null,
    rateLimit: { maxFailures: null, windowSeconds: null, banSeconds: null },
    now: NOW,
    ...overrides,
  };
}

/** A fresh failure counter. */
export function newCounter(overrides: Partial<BruteForceEntry> = {}): BruteForceEntry {
  return {
    scope: 'ip',
    subject: `198.51.100.${next() % 250}-${randomUUID()}`,
    ip: '198.51.100.7',
    keyId: null,
    userId: null,
    failures: 0,
    windowStartedAt: NOW,
    lastFailureAt: NOW,
    lockouts: 0,
    inFlight: 0,
    inFlightSince: null,
    bannedUntil: null,
    ...overrides,
  };
}

/** A launched model. */
export function newModel(overrides: Partial<ModelRecord> = {}): ModelRecord {
  return {
    uid: `model-${next()}-${randomBytes(3).toString('hex')}`,
    modelName: 'echo',
    modelType: 'LLM',
    engine: 'builtin',
    abilities: ['chat', 'generate'],
    requiresSystemMessageFirst: false,
    dimensions: null,
    upstream: null,
    launchedBy: null,
    createdAt: NOW,
    ...overrides,
  };
}

/** A registered family. */
export function newFamily(overrides: Partial<ModelFamilyRecord> = {}): ModelFamilyRecord {
  const modelName = `family-${next()}`;
  return {
    modelName,
    modelType: 'LLM',
    abilities: ['chat'],
    requiresSystemMessageFirst: true,
    dimensions: null,
    description: 'a registered family',
    definition: `{ "model_name": "${modelName}",  "model_ability": ["chat"] }`,
    createdBy: null,
    createdAt: NOW,
    ...overrides,
  };
}

/** An audit record. */
export function newAuditRecord(overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    timestamp: NOW,
    event_type: 'api_call',
    category: 'request',
    auth_type: 'api_key',
    user_id: null,
    username: 'alice',
    api_key_id: null,
    api_key_name: null,
    api_key_prefix: null,
    model_id: null,
    model_name: null,
    model_type: null,
    method: 'GET',
    route: '/v1/models',
    endpoint: '/v1/models',
    action: 'models.list',
    target: null,
    status: 'success',
    http_status: 200,
    reason: null,
    request_id: randomUUID(),
    latency_ms: 1.25,
    client_ip: '203.0.113.9',
    details: null,
    ...overrides,
  };
}
