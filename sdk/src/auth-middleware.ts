/**
 * The openapi-fetch middleware that authenticates calls: it skips the contract's public operations
 * (by schema path), sends the session's access token after `login()`, and otherwise the API key when
 * one is configured. When the server answers 401 `token_expired` to a session token, it refreshes once
 * (shared with every other call) and replays the request.
 */
import type { Middleware } from 'openapi-fetch';
import { publicOperations } from './generated/public-paths.js';
import type { Session } from './session.js';

/** Where an API key comes from: a string, or a function that returns one (e.g. from a vault). */
export type ApiKeySource = string | (() => string | Promise<string>);

/** Builds the middleware; `send` replays a request through the transport. */
export function authMiddleware(apiKey: ApiKeySource | undefined, session: Session, send: (request: Request) => Promise<Response>): Middleware {
  const replayable = new Map<string, { request: Request; token: string }>();
  return {
    async onRequest({ request, schemaPath, id }) {
      if (publicOperations.has(`${request.method} ${schemaPath}`) || request.headers.has('authorization')) return undefined;
      const token = await session.accessToken();
      if (token !== null) {
        request.headers.set('authorization', `Bearer ${token}`);
        replayable.set(id, { request: request.clone(), token });
        return request;
      }
      if (apiKey === undefined) return undefined;
      request.headers.set('authorization', `Bearer ${typeof apiKey === 'string' ? apiKey : await apiKey()}`);
      return request;
    },
    async onResponse({ response, id }) {
      const sent = replayable.get(id);
      replayable.delete(id);
      if (sent === undefined || response.status !== 401) return undefined;
      const code = await response
        .clone()
        .json()
        .then((body: { error?: { code?: string } }) => body.error?.code)
        .catch(() => undefined);
      if (code !== 'token_expired') return undefined;
      await session.refresh(sent.token);
      const token = await session.accessToken();
      if (token === null) return undefined;
      sent.request.headers.set('authorization', `Bearer ${token}`);
      return send(sent.request);
    },
    onError({ id }) {
      replayable.delete(id);
    },
  };
}
