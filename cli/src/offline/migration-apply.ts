/**
 * Carries out a migration plan in one write transaction: the plan is made again inside the
 * transaction (so nothing another process wrote in between is overwritten by accident), and any
 * conflict or failure rolls everything back. Once it committed, an `offline_auth_migration` audit
 * event records what was done, in counts (a refused migration records nothing).
 */
import { randomUUID } from 'node:crypto';
import { apiKeyDigest, apiKeyDisplayPrefix, hashPassword, recordOfflineAuditEvent, type Storage } from '@svc/server/internals';
import { CliError, ExitCode } from '../exit-codes.js';
import { operatorDetails } from './operator.js';
import type { LegacyUser } from './legacy-config.js';
import { planMigration, summarize, type MigrationPlan, type PlanOptions } from './migration-plan.js';

/** Applies the migration of `users` to `storage`; returns the plan that was carried out. */
export async function applyMigration(storage: Storage, users: readonly LegacyUser[], options: PlanOptions & { source: string }): Promise<MigrationPlan> {
  const preview = await planMigration(users, storage, options);
  assertNoConflicts(preview);
  // Hashing is slow (argon2id): done before the transaction, so the write lock is held briefly.
  const hashes = new Map<string, string>();
  for (const planned of preview.users) {
    if (planned.action === 'keep') continue;
    const user = users.find((candidate) => candidate.path === planned.path) as LegacyUser;
    hashes.set(planned.path, await hashPassword(user.password));
  }
  const now = Date.now();
  const plan = await storage.transaction(async (tx) => {
    const plan = await planMigration(users, tx, options);
    assertNoConflicts(plan);
    const adminsBefore = await tx.users.countEnabledHolding('admin');
    const userIds = new Map<string, string>();
    for (const planned of plan.users) {
      const hash = hashes.get(planned.path);
      if (planned.action !== 'keep' && hash === undefined) {
        throw new CliError(ExitCode.notFoundOrConflict, `${planned.username} was created by someone else while migrating; run the command again`);
      }
      if (planned.action === 'create') {
        const id = randomUUID();
        const created = await tx.users.create({
          id,
          username: planned.username,
          passwordHash: hash as string,
          source: 'migrated',
          permissions: planned.permissions,
          mustChangePassword: planned.mustChangePassword,
          now,
        });
        if (created === 'username_taken') {
          throw new CliError(ExitCode.notFoundOrConflict, `${planned.username} was created by someone else while migrating; run the command again`);
        }
        userIds.set(planned.username, id);
      } else {
        const id = planned.existingId as string;
        if (planned.action === 'update') {
          await tx.users.setPassword(id, hash as string, planned.mustChangePassword, now);
          await tx.users.setPermissions(id, planned.permissions, now);
          await tx.sessions.deleteFamiliesOfUser(id);
        }
        userIds.set(planned.username, id);
      }
    }
    if (adminsBefore > 0 && (await tx.users.countEnabledHolding('admin')) === 0) {
      // Only --force can take admin away (from a user the file lists without it); the server keeps
      // its last administrator, and so does the migration.
      throw new CliError(ExitCode.notFoundOrConflict, 'the file would leave the database without an enabled administrator; nothing was written');
    }
    for (const key of plan.keys) {
      if (key.action === 'create') {
        const id = randomUUID();
        await tx.keys.create({
          id,
          userId: userIds.get(key.username) as string,
          digest: apiKeyDigest(key.plaintext),
          keyPrefix: apiKeyDisplayPrefix(key.plaintext),
          ciphertext: options.encryption.encrypt(key.plaintext, id),
          encryptionKeyId: options.encryption.keyId,
          name: `legacy key ${key.number}`,
          description: `Migrated by svc-migrate-auth from ${options.source}`,
          expiresAt: null,
          // Legacy keys reached every model, as a new key without restrictions does.
          modelRestrictions: [{ type: 'all', value: null }],
          permissions: null,
          rateLimit: { maxFailures: null, windowSeconds: null, banSeconds: null },
          now,
        });
      } else if (key.action === 're-encrypt') {
        const id = key.existingId as string;
        await tx.keys.replaceCiphertext(id, options.encryption.encrypt(key.plaintext, id), options.encryption.keyId, now);
      }
    }
    return plan;
  });
  // After the commit: recorded only if the migration is. Counts only: never a password or a key.
  await recordOfflineAuditEvent(storage, {
    event_type: 'offline_auth_migration',
    action: 'svc-migrate-auth',
    category: 'admin',
    status: 'success',
    target: options.source,
    details: { ...summarize(plan), forced: options.force, ...operatorDetails() },
  });
  return plan;
}

function assertNoConflicts(plan: MigrationPlan): void {
  if (plan.conflicts.length === 0) return;
  const lines = plan.conflicts.map((conflict) => `${conflict.path}: ${conflict.message}`).join('; ');
  throw new CliError(ExitCode.notFoundOrConflict, `the database conflicts with the file, nothing was written: ${lines}`);
}
