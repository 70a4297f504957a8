/**
 * The offline way back from a ban or a lockout: lists and lifts IP bans, (IP, credential) bans and
 * account lockouts straight in the database, for an operator locked out of every administrator
 * session (issue 14, the lockout dead end). Each lift happens in one write transaction with its
 * `offline_unban` audit event; running servers see the change on their next request (the change
 * tracker and SQLite's `data_version`).
 */
import { canonicalIp, recordOfflineAuditEvent, type ActiveBan, type Storage } from '@svc/server/internals';
import { CliError, ExitCode } from '../exit-codes.js';
import { operatorDetails } from './operator.js';

/** One active ban or lockout, as the tool prints it. */
export interface BanRow {
  kind: 'ip' | 'credential' | 'account';
  ip: string | null;
  credential: string | null;
  username: string | null;
  failures: number;
  until: string;
  remaining_seconds: number;
}

/** What to lift. */
export type LiftTarget = { ip: string } | { username: string } | { all: true };

const kindOf = { ip: 'ip', key: 'credential', account: 'account' } as const;

/** Every active ban and lockout at `now`. */
export function listBans(storage: Storage, now: number): BanRow[] {
  return storage.bruteForce.activeBans(null, now).map((ban) => ({
    kind: kindOf[ban.scope],
    ip: ban.scope === 'account' ? null : ban.ip,
    credential: ban.keyId,
    username: ban.username,
    failures: ban.failures,
    until: new Date(ban.bannedUntil).toISOString(),
    remaining_seconds: Math.max(1, Math.ceil((ban.bannedUntil - now) / 1000)),
  }));
}

/**
 * Lifts the bans of `target` with their failure counters: an address's IP ban and every
 * (IP, credential) ban of it, an account's lockout, or everything. Answers the bans lifted.
 *
 * @throws {CliError} 1 for an address that is not one, 4 for an unknown username.
 */
export function liftBans(storage: Storage, target: LiftTarget, now: number): ActiveBan[] {
  return storage.transaction(() => {
    const repository = storage.bruteForce;
    let lifted: ActiveBan[];
    let subject: string;
    if ('ip' in target) {
      const ip = canonicalIp(target.ip);
      if (ip === null) throw new CliError(ExitCode.usage, `${JSON.stringify(target.ip)} is not an IP address`);
      subject = ip;
      lifted = repository.activeBans('ip', now).filter((ban) => ban.ip === ip);
      repository.delete('ip', ip, now);
      lifted.push(...repository.deleteKeyEntriesOfIp(ip, now));
    } else if ('username' in target) {
      const user = storage.users.findByUsername(target.username);
      if (user === null) throw new CliError(ExitCode.notFoundOrConflict, `no user named ${JSON.stringify(target.username)} in this database`);
      subject = user.username;
      lifted = repository.activeBans('account', now).filter((ban) => ban.userId === user.id);
      repository.delete('account', user.id, now);
    } else {
      subject = 'all';
      lifted = (['ip', 'key', 'account'] as const).flatMap((scope) => repository.deleteActiveBans(scope, now));
    }
    // In this transaction: recorded only if the lift is.
    recordOfflineAuditEvent(storage, {
      event_type: 'offline_unban',
      action: 'svc-unban',
      category: 'security',
      status: 'success',
      target: subject,
      details: {
        lifted: lifted.map((ban) => ({ kind: kindOf[ban.scope], ip: ban.ip, credential: ban.keyId, username: ban.username })),
        ...operatorDetails(),
      },
    });
    return lifted;
  });
}
