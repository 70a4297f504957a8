/**
 * Security settings, bans and lockouts (`admin`).
 */
import type { Handlers } from '../contract/handlers.js';
import type { ActiveBan } from '../storage/brute-force-repository.js';
import { isoTime } from '../services/presenters.js';
import type { Services } from '../services/services.js';

const remainingSeconds = (ban: ActiveBan, now: number): number => Math.max(0, Math.ceil((ban.bannedUntil - now) / 1000));

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
  return {
    getSecuritySettings: () => ({ status: 200, body: bruteForce.settings() }),
    updateSecuritySettings: ({ body }) => ({ status: 200, body: bruteForce.updateSettings(body) }),
    listBannedIps: () => {
      const now = Date.now();
      return {
        status: 200,
        body: bruteForce.activeBans('ip').map((ban) => ({ ip: ban.ip ?? '', banned_until: isoTime(ban.bannedUntil), remaining_seconds: remainingSeconds(ban, now) })),
      };
    },
    unbanIp: ({ body, request }) => {
      request.audit.target = body.ip;
      return { status: 200, body: { unbanned: bruteForce.unban('ip', { ip: body.ip }) } };
    },
    unbanAllIps: () => ({ status: 200, body: { unbanned: bruteForce.unbanAll('ip') } }),
    listBannedKeys: () => {
      const now = Date.now();
      return {
        status: 200,
        body: bruteForce.activeBans('key').map((ban) => ({
          ip: ban.ip ?? '',
          key_id: ban.keyId ?? '',
          banned_until: isoTime(ban.bannedUntil),
          remaining_seconds: remainingSeconds(ban, now),
        })),
      };
    },
    unbanKey: ({ body, request }) => {
      request.audit.target = `${body.ip} ${body.key_id}`;
      return { status: 200, body: { unbanned: bruteForce.unban('key', { ip: body.ip, keyId: body.key_id }) } };
    },
    unbanAllKeys: () => ({ status: 200, body: { unbanned: bruteForce.unbanAll('key') } }),
    listLockedAccounts: () => {
      const now = Date.now();
      return {
        status: 200,
        body: bruteForce.activeBans('account').map((ban) => ({
          user_id: ban.userId ?? '',
          username: ban.username,
          lockouts: ban.lockouts,
          locked_until: isoTime(ban.bannedUntil),
          remaining_seconds: remainingSeconds(ban, now),
        })),
      };
    },
    unlockAccount: ({ body, request }) => {
      request.audit.target = body.user_id;
      return { status: 200, body: { unbanned: bruteForce.unban('account', { userId: body.user_id }) } };
    },
    unlockAllAccounts: () => ({ status: 200, body: { unbanned: bruteForce.unbanAll('account') } }),
  };
}
