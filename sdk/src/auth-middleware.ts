/**
 * The openapi-fetch middleware that authenticates calls: it skips the contract's public operations
 * (by schema path), sends the session's access token after `login()`, and otherwise the API key when
 * one is configured. (The refresh when the server calls a session token expired is a hook of the
 * transport: see `transport.ts` and {@link Session.replaceExpired}.)
 */
import type { Middleware } from 'openapi-fetch';
import { publicOperations } from './generated/public-paths.js';
import type { Session } from './session.js';

/** Where an API key comes from: a string, or a function that returns one (e.g. from a vault). */
export type ApiKeySource = string | (() => string | Promise<string>);

/** Builds the middleware. */
export function authMiddleware(apiKey: ApiKeySource | undefined, session: Session): Middleware {
  return {
    async onRequest({ request, schemaPath }) {
      if (publicOperations.has(`${request.method} ${schemaPath}`) || request.headers.has('authorization')) return undefined;
      const token = await session.accessToken();
      if (token !== null) {
        request.headers.set('authorization', `Bearer ${token}`);
        return request;
      }
      if (apiKey === undefined) return undefined;
      request.headers.set('authorization', `Bearer ${typeof apiKey === 'string' ? apiKey : await apiKey()}`);
      return request;
    },
  };
}
