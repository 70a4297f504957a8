/**
 * What `svc-migrate-auth` will do with a valid legacy file against a database: per user create,
 * update (`--force`) or keep; per key create, re-encrypt (`--force`) or keep; and the conflicts that
 * stop it. Matching is by username (ignoring case) and by the key's digest, so running the migration
 * again never duplicates a user or a key.
 */
import {
  ApiError,
  apiKeyDigest,
  apiKeyDisplayPrefix,
  assertPasswordAcceptable,
  normalizePermissions,
  type KeyEncryption,
  type Permission,
  type StorageTx,
} from '@svc/server/internals';
import type { LegacyUser, Problem } from './legacy-config.js';

/** What happens to one user of the file. */
export interface PlannedUser {
  path: string;
  username: string;
  action: 'create' | 'update' | 'keep';
  /** The id of the existing user, for `update` and `keep`. */
  existingId: string | null;
  /** The permissions the file gives, mapped to the current names. */
  permissions: Permission[];
  /** True when the password does not meet the current policy: it must be changed at next login. */
  mustChangePassword: boolean;
  /** Why the password must be changed (the policy's reason), when it must. */
  passwordNote: string | null;
  /** True when the file used deprecated permission names (mapped). */
  usedLegacyNames: boolean;
}

/** What happens to one API key of the file. The plaintext is kept only in memory. */
export interface PlannedKey {
  path: string;
  username: string;
  /** The key's display prefix (`sk-` + 4). */
  keyPrefix: string;
  action: 'create' | 're-encrypt' | 'keep';
  /** The 1-based position of the key among its user's keys (its name is `legacy key <n>`). */
  number: number;
  plaintext: string;
  /** The id of the existing key, for `re-encrypt` and `keep`. */
  existingId: string | null;
}

/** The whole plan. */
export interface MigrationPlan {
  users: PlannedUser[];
  keys: PlannedKey[];
  /** Problems with the database's current content: the migration stops when there is one. */
  conflicts: Problem[];
}

/** How to plan. */
export interface PlanOptions {
  /** `--force`: the file wins over existing users and re-encrypts existing keys. */
  force: boolean;
  passwordMinLength: number;
  encryption: KeyEncryption;
}

/** The stores a plan reads: the storage, or the stores of a transaction. */
export type PlanStores = Pick<StorageTx, 'users' | 'keys'>;

/** Plans the migration of `users` into `storage` (null: an empty or absent database). */
export async function planMigration(users: readonly LegacyUser[], storage: PlanStores | null, options: PlanOptions): Promise<MigrationPlan> {
  const plan: MigrationPlan = { users: [], keys: [], conflicts: [] };
  for (const user of users) {
    const existing = storage === null ? null : await storage.users.findByUsername(user.username);
    const { permissions, usedLegacyNames } = normalizePermissions(user.permissions);
    const passwordNote = policyViolation(user.password, options.passwordMinLength, user.username);
    plan.users.push({
      path: user.path,
      username: user.username,
      action: existing === null ? 'create' : options.force ? 'update' : 'keep',
      existingId: existing?.id ?? null,
      permissions,
      mustChangePassword: passwordNote !== null,
      passwordNote,
      usedLegacyNames,
    });
    for (const [index, plaintext] of user.apiKeys.entries()) {
      const path = `${user.path}.api_keys[${index}]`;
      const stored = storage === null ? null : await storage.keys.findByDigest(apiKeyDigest(plaintext));
      if (stored !== null && (existing === null || stored.userId !== existing.id)) {
        plan.conflicts.push({ path, message: `this API key is already stored for another user (${stored.ownerUsername}); remove it from the file or delete that key first` });
        continue;
      }
      const action = stored === null ? 'create' : options.force && stored.encryptionKeyId !== options.encryption.keyId ? 're-encrypt' : 'keep';
      plan.keys.push({ path, username: user.username, keyPrefix: apiKeyDisplayPrefix(plaintext), action, number: index + 1, plaintext, existingId: stored?.id ?? null });
    }
  }
  return plan;
}

function policyViolation(password: string, minLength: number, username: string): string | null {
  try {
    assertPasswordAcceptable(password, minLength, username, 'password');
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error.message;
    throw error;
  }
}

/** Counts of a plan's actions, for the summary line. */
export function summarize(plan: MigrationPlan): Record<'usersCreated' | 'usersUpdated' | 'usersKept' | 'keysCreated' | 'keysReencrypted' | 'keysKept', number> {
  const count = <T extends { action: string }>(items: readonly T[], action: string) => items.filter((item) => item.action === action).length;
  return {
    usersCreated: count(plan.users, 'create'),
    usersUpdated: count(plan.users, 'update'),
    usersKept: count(plan.users, 'keep'),
    keysCreated: count(plan.keys, 'create'),
    keysReencrypted: count(plan.keys, 're-encrypt'),
    keysKept: count(plan.keys, 'keep'),
  };
}
