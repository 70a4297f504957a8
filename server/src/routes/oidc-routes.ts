/**
 * Single sign-on routes: the public offer, the redirect to the provider, its callback, the CLI's
 * code exchange, the provider logout, and the settings administrators may read.
 */
import type { FastifyRequest } from 'fastify';
import type { Handlers } from '../contract/handlers.js';
import { ApiError } from '../errors.js';
import { clearedOidcBindingCookie, oidcBindingCookie, readOidcBindingCookie } from '../http/oidc-binding-cookie.js';
import { sessionCookie } from '../http/session-cookie.js';
import type { OidcService } from '../oidc/oidc-service.js';
import type { Services } from '../services/services.js';

/** Refusals that count as failed logins against the client IP: guessed states, codes and device codes. */
const countedFailures = new Set(['oidc_state_invalid', 'oidc_code_invalid', 'oidc_login_failed']);

/** Runs `work`; a refusal worth counting is counted against the client IP before it is answered. */
async function counted<T>(services: Services, request: FastifyRequest, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError && countedFailures.has(error.code)) services.bruteForce.recordAddressFailure(request.audit.clientIp);
    throw error;
  }
}

function configured(services: Services): OidcService {
  if (services.oidc === null) throw new ApiError('oidc_not_configured', 'Single sign-on is not configured on this server (SVC_OIDC_ISSUER is unset)');
  return services.oidc;
}

/** True when a browser navigated here (it should land on a page, not on a JSON error). */
function isBrowserNavigation(request: FastifyRequest): boolean {
  const mode = request.headers['sec-fetch-mode'];
  if (mode !== undefined) return mode === 'navigate';
  return (request.headers.accept ?? '').includes('text/html');
}

export function oidcHandlers(
  services: Services,
): Pick<
  Handlers,
  'getOidcLoginOptions' | 'startOidcLogin' | 'completeOidcLogin' | 'exchangeOidcCliCode' | 'startOidcDeviceLogin' | 'completeOidcDeviceLogin' | 'startOidcLogout' | 'getOidcSettings'
> {
  return {
    getOidcLoginOptions: async () => ({ status: 200, body: services.oidc === null ? { enabled: false } : await services.oidc.loginOptions() }),
    getOidcSettings: () => ({ status: 200, body: services.oidc === null ? { enabled: false } : services.oidc.settings() }),
    startOidcLogin: async ({ query, request }) => {
      const oidc = configured(services);
      const { cli_redirect_uri: redirectUri, cli_code_challenge: challenge } = query;
      if ((redirectUri === undefined) !== (challenge === undefined)) {
        throw new ApiError('invalid_request', 'cli_redirect_uri and cli_code_challenge go together', { param: redirectUri === undefined ? 'cli_redirect_uri' : 'cli_code_challenge' });
      }
      const cli = redirectUri === undefined || challenge === undefined ? null : { redirectUri, codeChallenge: challenge };
      const started = await oidc.startLogin(cli);
      const headers: Record<string, string> = { location: started.authorizationUrl };
      if (started.browserBinding !== null) headers['set-cookie'] = oidcBindingCookie(request, started.browserBinding);
      return { status: 302, body: undefined, headers };
    },
    completeOidcLogin: async ({ query, request, reply }) => {
      const oidc = configured(services);
      const binding = readOidcBindingCookie(request);
      const cookies = binding === null ? [] : [clearedOidcBindingCookie(request)];
      try {
        const completed = await counted(services, request, () => oidc.completeLogin(query, binding, request.audit));
        if (completed.kind === 'cli') {
          void reply.header('set-cookie', cookies);
          return { status: 302, body: undefined, headers: { location: completed.redirectTo } };
        }
        cookies.push(sessionCookie(request, completed.tokens.refresh_token, completed.tokens.refresh_expires_in));
        void reply.header('set-cookie', cookies);
        return { status: 302, body: undefined, headers: { location: oidc.appUrl('/') } };
      } catch (error) {
        if (cookies.length > 0) void reply.header('set-cookie', cookies);
        if (!(error instanceof ApiError) || !isBrowserNavigation(request)) throw error;
        request.audit.errorCode = error.code;
        return { status: 302, body: undefined, headers: { location: oidc.appUrl(`/login?sso_error=${encodeURIComponent(error.code)}`) } };
      }
    },
    exchangeOidcCliCode: async ({ body, request }) => ({
      status: 200,
      body: await counted(services, request, () => configured(services).exchangeCliCode(body.code, body.code_verifier)),
    }),
    startOidcDeviceLogin: async () => ({ status: 200, body: await configured(services).startDeviceLogin() }),
    completeOidcDeviceLogin: async ({ body, request }) => ({
      status: 200,
      body: await counted(services, request, () => configured(services).completeDeviceLogin(body.device_code, request.audit)),
    }),
    startOidcLogout: async () => ({ status: 302, body: undefined, headers: { location: await configured(services).logoutUrl() } }),
  };
}
