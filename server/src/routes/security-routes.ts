/**
 * Security settings, bans and lockouts (`admin`).
 */
import type { Handlers } from '../contract/handlers.js';
import { keySubject } from '../brute-force/brute-force-service.js';
import type { ActiveBan, BruteForceScope } from '../storage/brute-force-repository.js';
import { isoTime } from '../services/presenters.js';
import type { Services } from '../services/services.js';


export function securityHandlers(
  services: Services,
): Pick<
  Handlers,
  | 'getSecuritySettings'
  | 'updateSecuritySettings'
  | 'listBannedIps'
  | 'unbanIp'
  | 'unbanAllIps'
  | 'listBannedKeys'
  | 'unbanKey'
  | 'unbanAllKeys'
  | 'listLockedAccounts'
  | 'unlockAccount'
  | 'unlockAllAccounts'
> {
  const { bruteForce } = services;
  /** The active bans of `scope`, each presented with the seconds it has left. */
  const listBans = <T>(scope: BruteForceScope, present: (ban: ActiveBan, remainingSeconds: number) => T) => {
    const now = Date.now();
    return { status: 200 as const, body: bruteForce.activeBans(scope).map((ban) => present(ban, Math.max(0, Math.ceil((ban.bannedUntil - now) / 1000)))) };
  };
  return {
    getSecuritySettings: () => ({ status: 200, body: bruteForce.settings() }),
    updateSecuritySettings: ({ body }) => ({ status: 200, body: bruteForce.updateSettings(body) }),
    listBannedIps: () =>
      listBans('ip', (ban, remaining) => ({ ip: ban.ip ?? '', banned_until: isoTime(ban.bannedUntil), remaining_seconds: remaining })),
    unbanIp: ({ body, request }) => {
      request.audit.target = body.ip;
      return { status: 200, body: { unbanned: bruteForce.unban('ip', { ip: body.ip }) } };
    },
    unbanAllIps: () => ({ status: 200, body: { unbanned: bruteForce.unbanAll('ip') } }),
    listBannedKeys: () =>
      listBans('key', (ban, remaining) => ({
        ip: ban.ip ?? '',
        key_id: ban.keyId ?? '',
        banned_until: isoTime(ban.bannedUntil),
        remaining_seconds: remaining,
      })),
    unbanKey: ({ body, request }) => {
      request.audit.target = keySubject(body.ip, body.key_id);
      return { status: 200, body: { unbanned: bruteForce.unban('key', { ip: body.ip, keyId: body.key_id }) } };
    },
    unbanAllKeys: () => ({ status: 200, body: { unbanned: bruteForce.unbanAll('key') } }),
    listLockedAccounts: () =>
      listBans('account', (ban, remaining) => ({
        user_id: ban.userId ?? '',
        username: ban.username,
        lockouts: ban.lockouts,
        locked_until: isoTime(ban.bannedUntil),
        remaining_seconds: remaining,
      })),
    unlockAccount: ({ body, request }) => {
      request.audit.target = body.user_id;
      return { status: 200, body: { unbanned: bruteForce.unban('account', { userId: body.user_id }) } };
    },
    unlockAllAccounts: () => ({ status: 200, body: { unbanned: bruteForce.unbanAll('account') } }),
  };
}
