/**
 * The bans of one API key (`admin`), as the reference server's key page reads them: the client IPs
 * a key is banned from after repeated failures there, and lifting them.
 */
import { keySubject } from '../brute-force/brute-force-service.js';
import { credentialIdOfDigest } from '../brute-force/credential-id.js';
import type { Handlers } from '../contract/handlers.js';
import { isoTime } from '../services/presenters.js';
import type { Services } from '../services/services.js';

export function keyBanHandlers(services: Services): Pick<Handlers, 'listApiKeyBans' | 'unbanApiKey' | 'unbanApiKeyEverywhere'> {
  const { bruteForce, keys } = services;
  /** The credential id the key's failures are counted under (404 for an unknown key). */
  const credentialOf = async (principal: Parameters<typeof keys.get>[0], keyId: string) => credentialIdOfDigest((await keys.get(principal, keyId)).digest);
  return {
    listApiKeyBans: async ({ params, principal }) => {
      const now = services.clock.now();
      const bans = await bruteForce.bansOfKey(await credentialOf(principal, params.key_id));
      return {
        status: 200,
        body: bans.map((ban) => ({
          ip: ban.ip ?? '',
          banned_until: isoTime(ban.bannedUntil),
          remaining_seconds: Math.max(0, Math.ceil((ban.bannedUntil - now) / 1000)),
        })),
      };
    },
    unbanApiKey: async ({ body, params, principal, request }) => {
      const credential = await credentialOf(principal, params.key_id);
      request.audit.target = keySubject(body.ip, credential);
      return { status: 200, body: { unbanned: await bruteForce.unban('key', { ip: body.ip, keyId: credential }) } };
    },
    unbanApiKeyEverywhere: async ({ params, principal }) => ({
      status: 200,
      body: { unbanned: await bruteForce.unbanKeyEverywhere(await credentialOf(principal, params.key_id)) },
    }),
  };
}
