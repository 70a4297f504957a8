/**
 * Security settings, bans and lockouts (`admin`).
 */
import type { Handlers } from '../contract/handlers.js';
import { keySubject, type ActiveBan, type BruteForceScope } from '../brute-force/brute-force-service.js';
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
  const { bruteForce, clock } = services;
  /** The active bans of `scope`, each presented with the seconds it has left. */
  const listBans = async <T>(scope: BruteForceScope, present: (ban: ActiveBan, remainingSeconds: number) => T) => {
    const now = clock.now();
    const bans = await bruteForce.activeBans(scope);
    return { status: 200 as const, body: bans.map((ban) => present(ban, Math.max(0, Math.ceil((ban.bannedUntil - now) / 1000)))) };
  };
  return {
    getSecuritySettings: async () => ({ status: 200, body: await bruteForce.settings() }),
    updateSecuritySettings: async ({ body }) => ({ status: 200, body: await bruteForce.updateSettings(body) }),
    listBannedIps: () =>
      listBans('ip', (ban, remaining) => ({ ip: ban.ip ?? '', banned_until: isoTime(ban.bannedUntil), remaining_seconds: remaining })),
    unbanIp: async ({ body, request }) => {
      request.audit.target = body.ip;
      return { status: 200, body: { unbanned: await bruteForce.unban('ip', { ip: body.ip }) } };
    },
    unbanAllIps: async () => ({ status: 200, body: { unbanned: await bruteForce.unbanAll('ip') } }),
    listBannedKeys: () =>
      listBans('key', (ban, remaining) => ({
        ip: ban.ip ?? '',
        key_id: ban.keyId ?? '',
        banned_until: isoTime(ban.bannedUntil),
        remaining_seconds: remaining,
      })),
    unbanKey: async ({ body, request }) => {
      request.audit.target = keySubject(body.ip, body.key_id);
      return { status: 200, body: { unbanned: await bruteForce.unban('key', { ip: body.ip, keyId: body.key_id }) } };
    },
    unbanAllKeys: async () => ({ status: 200, body: { unbanned: await bruteForce.unbanAll('key') } }),
    listLockedAccounts: () =>
      listBans('account', (ban, remaining) => ({
        user_id: ban.userId ?? '',
        username: ban.username,
        lockouts: ban.lockouts,
        locked_until: isoTime(ban.bannedUntil),
        remaining_seconds: remaining,
      })),
    unlockAccount: async ({ body, request }) => {
      request.audit.target = body.user_id;
      return { status: 200, body: { unbanned: await bruteForce.unban('account', { userId: body.user_id }) } };
    },
    unlockAllAccounts: async () => ({ status: 200, body: { unbanned: await bruteForce.unbanAll('account') } }),
  };
}
