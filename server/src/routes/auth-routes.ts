/**
 * Login (and its `/token` alias), refresh, logout and the caller's own account.
 */
import type { FastifyRequest } from 'fastify';
import { allPermissions, sortedPermissions } from '../auth/permissions.js';
import type { LoginAttempt } from '../services/session-service.js';
import type { Handlers } from '../contract/handlers.js';
import { ApiError } from '../errors.js';
import { clearedSessionCookie, readSessionCookie, sessionCookie } from '../http/session-cookie.js';
import { isoTime } from '../services/presenters.js';
import type { Services } from '../services/services.js';

const loginAttempt = (request: FastifyRequest): LoginAttempt => ({ clientIp: request.audit.clientIp, audit: request.audit });

export function authHandlers(
  services: Services,
): Pick<
  Handlers,
  'login' | 'loginLegacy' | 'refreshTokens' | 'logout' | 'startBrowserSession' | 'refreshBrowserSession' | 'endBrowserSession' | 'getMe' | 'changeOwnPassword'
> {
  return {
    login: async ({ body, request }) => ({ status: 200, body: await services.sessions.login(body.username, body.password, loginAttempt(request)) }),
    loginLegacy: async ({ body, request }) => ({ status: 200, body: await services.sessions.login(body.username, body.password, loginAttempt(request)) }),
    refreshTokens: async ({ body }) => ({ status: 200, body: await services.sessions.refresh(body.refresh_token) }),
    logout: async ({ body }) => {
      await services.sessions.logout(body.refresh_token);
      return { status: 200, body: { ok: true } };
    },
    startBrowserSession: async ({ body, request }) => {
      const { refresh_token: refreshToken, ...session } = await services.sessions.login(body.username, body.password, loginAttempt(request));
      return { status: 200, body: session, headers: { 'set-cookie': sessionCookie(request, refreshToken, session.refresh_expires_in) } };
    },
    refreshBrowserSession: async ({ request, reply }) => {
      const presented = readSessionCookie(request);
      try {
        if (presented === null) throw new ApiError('invalid_refresh_token', 'No browser session: log in again');
        const { refresh_token: refreshToken, ...session } = await services.sessions.refresh(presented);
        return { status: 200, body: session, headers: { 'set-cookie': sessionCookie(request, refreshToken, session.refresh_expires_in) } };
      } catch (error) {
        // A refused cookie is worthless: the browser forgets it along with the error.
        if (error instanceof ApiError) void reply.header('set-cookie', clearedSessionCookie(request));
        throw error;
      }
    },
    endBrowserSession: async ({ request }) => {
      const presented = readSessionCookie(request);
      if (presented !== null) await services.sessions.logout(presented);
      return { status: 200, body: { ok: true }, headers: { 'set-cookie': clearedSessionCookie(request) } };
    },
    getMe: ({ principal }) => {
      const { user, apiKey } = principal;
      if (user === null) {
        return {
          status: 200,
          body: {
            id: 'anonymous',
            username: 'anonymous',
            enabled: true,
            must_change_password: false,
            permissions: [...allPermissions],
            auth_type: 'none',
            api_key: null,
            created_at: null,
          },
        };
      }
      return {
        status: 200,
        body: {
          id: user.id,
          username: user.username,
          enabled: user.enabled,
          must_change_password: user.mustChangePassword,
          source: user.source,
          permissions: sortedPermissions(principal.permissions),
          auth_type: principal.authType,
          api_key: apiKey === null ? null : { id: apiKey.id, name: apiKey.name, key_prefix: apiKey.keyPrefix },
          created_at: isoTime(user.createdAt),
        },
      };
    },
    changeOwnPassword: async ({ body, principal, request }) => {
      if (principal.user === null) {
        throw new ApiError('invalid_request', 'Authentication is switched off: there is no account to change');
      }
      if (principal.apiKey !== null) {
        // A key is delegated power over the account's resources, not over the account itself.
        throw new ApiError('permission_denied', 'An API key cannot change its owner\'s password: sign in with the password to change it');
      }
      return {
        status: 200,
        body: await services.sessions.changeOwnPassword(principal.user, body.current_password, body.new_password, loginAttempt(request)),
      };
    },
  };
}
