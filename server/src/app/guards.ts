/**
 * Pipeline step 4: the guards every request passes before its route: the response headers every
 * answer carries, the client IP, the change feed read once (while authentication is on), the IP
 * ban looked up (`authorize` enforces it on guesses only) and the refusal of credentials in the URL.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BanStatus } from '../brute-force/brute-force-service.js';
import type { ServerConfig } from '../config.js';
import { ApiError } from '../errors.js';
import { clientIp, type TrustFunction } from '../http/client-ip.js';
import { isLoopback } from '../http/ip-address.js';
import type { Services } from '../services/services.js';
import type { Epochs } from '../storage/port/index.js';

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
export function registerGuards(app: FastifyInstance, services: Pick<Services, 'bruteForce' | 'config' | 'changes'>, trust: TrustFunction): void {
  const { bruteForce, config, changes } = services;
  const warnForwardedHeaders = forwardedHeaderWarning(app, config);
  app.addHook('onRequest', (request, reply, done) => {
    void reply.headers({ 'x-request-id': request.id, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    request.audit = { clientIp: clientIp(request, trust) };
    warnForwardedHeaders(request);
    const rest = (): void => {
      // A ban stops guessing, not the people behind the address who are signed in: it is enforced
      // per operation in `authorize` (logins, and credentials that fail), never on a live credential.
      if (config.authEnabled) request.ipBan = bruteForce.ipBan(request.audit.clientIp);
      const query = request.query as Record<string, unknown> | undefined;
      if (query !== undefined && credentialQueryParameters.some((name) => name in query)) {
        return done(new ApiError('credentials_in_query', 'Credentials are never accepted in the URL; send Authorization: Bearer <token> instead'));
      }
      done();
    };
    if (config.authEnabled) request.epochs = readEpochs(changes);
    const refreshing = request.epochs === null ? null : bruteForce.refreshBans(request.epochs);
    if (refreshing === null) rest();
    else void refreshing.then(rest);
  });
}

/**
 * One reading of the change feed for a request (on PostgreSQL one round trip, shared by the ban list
 * and the authenticator); a feed that throws becomes a rejected reading, so the authenticator fails
 * closed while the ban list keeps the bans it knows.
 */
function readEpochs(changes: Services['changes']): Epochs | Promise<Epochs> {
  try {
    return changes.current();
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Warns once (one log line) when the server listens on a non-loopback address, trusts no proxy
 * and a request arrives with forwarded headers: it then sits behind a proxy whose clients all
 * share the proxy's address, and one user's typos ban everybody.
 */
function forwardedHeaderWarning(app: FastifyInstance, config: ServerConfig): (request: FastifyRequest) => void {
  let warned = config.trustedProxies.length > 0;
  return (request) => {
    if (warned) return;
    const headers = request.headers;
    if (headers['x-forwarded-for'] === undefined && headers['x-real-ip'] === undefined && headers['forwarded'] === undefined) return;
    const listening = app.server.address();
    if (listening === null || typeof listening === 'string' || isLoopback(listening.address)) return;
    warned = true;
    app.log.warn(
      `forwarded headers (X-Forwarded-For, X-Real-IP or Forwarded) arrive but SVC_TRUSTED_PROXIES is not set: every client behind the proxy shares one address, so one client's failures ban them all; set SVC_TRUSTED_PROXIES to the proxy's address`,
    );
  };
}
