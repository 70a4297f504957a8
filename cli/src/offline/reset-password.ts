/**
 * The offline administrator password reset: in one write transaction, the new hash, a bumped token
 * version (every outstanding access token of the user fails on its next use, in every server
 * process) and the deletion of the user's refresh sessions; once committed, an
 * `offline_password_reset` audit event. Only users holding `admin`.
 */
import {
  ApiError,
  assertPasswordAcceptable,
  hashPassword,
  recordOfflineAuditEvent,
  userOrNull,
  type Storage,
  type StorageTx,
  type UserRecord,
} from '@svc/server/internals';
import { CliError, ExitCode } from '../exit-codes.js';
import { operatorDetails } from './operator.js';

/** The administrator a reset may act on, or a refusal. */
export async function findAdministrator(storage: Pick<StorageTx, 'users'>, username: string): Promise<UserRecord> {
  const user = userOrNull(await storage.users.findByUsername(username));
  if (user === null) throw new CliError(ExitCode.notFoundOrConflict, `no user named ${JSON.stringify(username)} in this database`);
  if (!user.permissions.includes('admin')) {
    throw new CliError(
      ExitCode.forbidden,
      `${user.username} does not hold admin: svc-reset-auth-password resets only administrators' passwords; an administrator sets other users' passwords with: svc users password ${user.username}`,
    );
  }
  return user;
}

/** Refuses a password the server's policy refuses, with the server's reason. */
export function assertAcceptable(password: string, minLength: number, username: string): void {
  try {
    assertPasswordAcceptable(password, minLength, username, 'password');
  } catch (error) {
    if (error instanceof ApiError) throw new CliError(ExitCode.usage, `${error.message}; nothing was changed`);
    throw error;
  }
}

/** Sets the administrator's new password and revokes their sessions and access tokens. */
export async function resetAdministratorPassword(storage: Storage, user: UserRecord, password: string): Promise<void> {
  const passwordHash = await hashPassword(password);
  const current = await storage.transaction(async (tx) => {
    const found = await findAdministrator(tx, user.username);
    if (found.id !== user.id) throw new CliError(ExitCode.notFoundOrConflict, `${user.username} changed while resetting; run the command again`);
    await tx.users.setPassword(found.id, passwordHash, false, Date.now());
    await tx.sessions.deleteFamiliesOfUser(found.id);
    return found;
  });
  // After the commit: recorded only if the reset is. Never the password.
  await recordOfflineAuditEvent(storage, {
    event_type: 'offline_password_reset',
    action: 'svc-reset-auth-password',
    category: 'admin',
    status: 'success',
    user_id: current.id,
    username: current.username,
    target: current.id,
    details: { sessions_revoked: true, enabled: current.enabled, ...operatorDetails() },
  });
}
