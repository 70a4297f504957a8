/**
 * Pipeline step 4: the guards every request passes before its route: the response headers every
 * answer carries, the client IP, the IP ban (while authentication is on) and the refusal of
 * credentials in the URL.
 */
import type { FastifyInstance } from 'fastify';
import type { BanStatus } from '../brute-force/brute-force-service.js';
import { ApiError } from '../errors.js';
import { clientIp, type TrustFunction } from '../http/client-ip.js';
import type { Services } from '../services/services.js';

/** Query parameters that would carry a credential; refused so secrets never sit in URLs or logs. */
const credentialQueryParameters = ['access_token', 'api_key', 'apikey', 'token', 'refresh_token', 'jwt'];

/** The 429 a banned caller gets, with the `Retry-After` the ban leaves. */
export function bannedError(ban: BanStatus): ApiError {
  const from = ban.scope === 'ip' ? 'from this address' : 'with this credential';
  return new ApiError(ban.scope === 'ip' ? 'ip_banned' : 'key_banned', `Too many failed attempts ${from}; try again in ${ban.retryAfterSeconds} seconds`, {
    headers: { 'retry-after': String(ban.retryAfterSeconds) },
  });
}

/**
 * Registers the global `onRequest` guard. Callback style: while the ban list is current (the hot
 * path on SQLite) a request passes without a promise.
 */
export function registerGuards(app: FastifyInstance, services: Pick<Services, 'bruteForce' | 'config'>, trust: TrustFunction): void {
  const { bruteForce, config } = services;
  app.addHook('onRequest', (request, reply, done) => {
    void reply.headers({ 'x-request-id': request.id, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    request.audit = { clientIp: clientIp(request, trust) };
    const rest = (): void => {
      if (config.authEnabled) {
        const ban = bruteForce.ipBan(request.audit.clientIp);
        if (ban !== null) return done(bannedError(ban));
      }
      const query = request.query as Record<string, unknown> | undefined;
      if (query !== undefined && credentialQueryParameters.some((name) => name in query)) {
        return done(new ApiError('credentials_in_query', 'Credentials are never accepted in the URL; send Authorization: Bearer <token> instead'));
      }
      done();
    };
    const refreshing = config.authEnabled ? bruteForce.refreshBans() : null;
    if (refreshing === null) rest();
    else void refreshing.then(rest);
  });
}
