/**
 * The offline way back from a ban or a lockout: lists and lifts IP bans, (IP, credential) bans and
 * account lockouts straight in the database, for an operator locked out of every administrator
 * session (issue 14, the lockout dead end). Each lift happens in one write transaction, and once it
 * is committed, its `offline_unban` audit event is recorded; running servers see the change on their
 * next request (the storage's change feed: the `bans` epoch, which the database's triggers move).
 */
import { canonicalIp, recordOfflineAuditEvent, userOrNull, type ActiveBan, type Storage } from '@svc/server/internals';
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
export async function listBans(storage: Storage, now: number): Promise<BanRow[]> {
  return (await storage.bruteForce.activeBans(null, now)).map((ban) => ({
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
export async function liftBans(storage: Storage, target: LiftTarget, now: number): Promise<ActiveBan[]> {
  const { lifted, subject } = await storage.transaction(async (tx) => {
    const counters = tx.bruteForce;
    if ('ip' in target) {
      const ip = canonicalIp(target.ip);
      if (ip === null) throw new CliError(ExitCode.usage, `${JSON.stringify(target.ip)} is not an IP address`);
      const banned = (await counters.activeBans('ip', now)).filter((ban) => ban.ip === ip);
      await counters.delete('ip', ip, now);
      banned.push(...(await counters.deleteKeyEntriesOfIp(ip, now)));
      return { lifted: banned, subject: ip };
    }
    if ('username' in target) {
      const user = userOrNull(await tx.users.findByUsername(target.username));
      if (user === null) throw new CliError(ExitCode.notFoundOrConflict, `no user named ${JSON.stringify(target.username)} in this database`);
      const banned = (await counters.activeBans('account', now)).filter((ban) => ban.userId === user.id);
      await counters.delete('account', user.id, now);
      return { lifted: banned, subject: user.username };
    }
    const banned: ActiveBan[] = [];
    for (const scope of ['ip', 'key', 'account'] as const) banned.push(...(await counters.deleteActiveBans(scope, now)));
    return { lifted: banned, subject: 'all' };
  });
  // After the commit: recorded only if the lift is.
  await recordOfflineAuditEvent(storage, {
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
}
