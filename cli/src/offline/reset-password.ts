/**
 * The offline administrator password reset: in one write transaction, the new hash, a bumped token
 * version (every outstanding access token of the user fails on its next use, in every server
 * process), the deletion of the user's refresh sessions and an `offline_password_reset` audit event.
 * Only users holding `admin`.
 */
import { ApiError, assertPasswordAcceptable, hashPassword, recordOfflineAuditEvent, type Storage, type UserRecord } from '@svc/server/internals';
import { CliError, ExitCode } from '../exit-codes.js';
import { operatorDetails } from './operator.js';

/** The administrator a reset may act on, or a refusal. */
export function findAdministrator(storage: Storage, username: string): UserRecord {
  const user = storage.users.findByUsername(username);
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
  storage.transaction(() => {
    const current = findAdministrator(storage, user.username);
    if (current.id !== user.id) throw new CliError(ExitCode.notFoundOrConflict, `${user.username} changed while resetting; run the command again`);
    storage.users.setPassword(current.id, passwordHash, false, Date.now());
    storage.sessions.deleteFamiliesOfUser(current.id);
    // In this transaction: recorded only if the reset is. Never the password.
    recordOfflineAuditEvent(storage, {
      event_type: 'offline_password_reset',
      action: 'svc-reset-auth-password',
      category: 'admin',
      status: 'success',
      user_id: current.id,
      username: current.username,
      target: current.id,
      details: { sessions_revoked: true, enabled: current.enabled, ...operatorDetails() },
    });
  });
}
