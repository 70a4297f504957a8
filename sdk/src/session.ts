/**
 * A logged-in session: login, the access token for the next call (refreshed first when it has
 * expired), one shared refresh for any number of concurrent callers, and logout. A refresh the server
 * refuses clears the session and surfaces as an {@link AuthenticationError}; one that fails on the way
 * (connection, 5xx) keeps the session, so a later call can try again.
 */
import type { Client as FetchClient } from 'openapi-fetch';
import { AuthenticationError, BadRequestError } from './errors.js';
import type { paths } from './generated/openapi.js';
import { unwrap } from './resources/unwrap.js';
import type { StoredSession, TokenStore } from './token-store.js';
import type { BrowserSession, TokenPair } from './types.js';

/** An access token this close to its expiry is refreshed before use (clock skew, time in flight). */
const EXPIRY_MARGIN_MS = 10_000;

/** Keeps the token pair of a login and refreshes it. */
export class Session {
  readonly #store: TokenStore;
  readonly #api: FetchClient<paths>;
  #refreshing: Promise<void> | null = null;
  /** Access tokens this session handed out for calls: only those are refreshed when the server calls them expired. */
  readonly #sentTokens = new Set<string>();

  constructor(store: TokenStore, api: FetchClient<paths>) {
    this.#store = store;
    this.#api = api;
  }

  /** Logs in and keeps the pair. */
  async login(username: string, password: string): Promise<TokenPair> {
    const pair = await unwrap(this.#api.POST('/v1/auth/login', { body: { username, password } }));
    await this.#store.set(toStored(pair, pair.refresh_token));
    return pair;
  }

  /**
   * Logs in for a browser: the server keeps the refresh token in an HttpOnly cookie scoped to the
   * session routes, and only the access token is kept here (in memory by default).
   */
  async startBrowserSession(username: string, password: string): Promise<BrowserSession> {
    const session = await unwrap(this.#api.POST('/v1/auth/session', { body: { username, password } }));
    await this.#store.set(toStored(session, null));
    return session;
  }

  /**
   * Picks up the browser session the cookie still holds (after a page reload): true when there is
   * one, false when the server refused it (no cookie, expired, revoked).
   */
  async resumeBrowserSession(): Promise<boolean> {
    try {
      await this.#renewBrowserSession();
      return true;
    } catch (error) {
      if (error instanceof AuthenticationError || error instanceof BadRequestError) return false;
      throw error;
    }
  }

  /** Keeps a pair the server handed out some other way (e.g. after changing one's own password). */
  async adopt(pair: TokenPair): Promise<void> {
    await this.#store.set(toStored(pair, pair.refresh_token));
  }

  /** Revokes the refresh token on the server and forgets the session. */
  async logout(): Promise<void> {
    const session = await this.#store.get();
    await this.#store.clear();
    this.#sentTokens.clear();
    if (session === null) return;
    if (session.refreshToken === null) await unwrap(this.#api.POST('/v1/auth/session/logout', { body: {} }));
    else await unwrap(this.#api.POST('/v1/auth/logout', { body: { refresh_token: session.refreshToken } }));
  }

  /** The access token to send now (refreshed first if it has expired), or null when not logged in. */
  async accessToken(): Promise<string | null> {
    const session = await this.#store.get();
    if (session === null) return null;
    if (Date.now() < session.accessTokenExpiresAt - EXPIRY_MARGIN_MS) return this.#sent(session.accessToken);
    await this.refresh(session.accessToken);
    const fresh = (await this.#store.get())?.accessToken;
    return fresh === undefined ? null : this.#sent(fresh);
  }

  /**
   * The server answered 401 `token_expired` to a call that carried `staleAccessToken`: when this
   * session sent that token, refresh (once, shared with every other caller) and resolve to the token
   * to replay the call with; null for a token this session did not send (the caller's own header).
   */
  async replaceExpired(staleAccessToken: string): Promise<string | null> {
    if (!this.#sentTokens.has(staleAccessToken)) return null;
    await this.refresh(staleAccessToken);
    return this.accessToken();
  }

  #sent(token: string): string {
    this.#sentTokens.add(token);
    return token;
  }

  /**
   * Replaces `staleAccessToken` with a fresh pair. Concurrent callers share one request; a caller
   * whose stale token was already replaced gets the new one without another request.
   */
  refresh(staleAccessToken: string): Promise<void> {
    this.#refreshing ??= this.#refreshOnce(staleAccessToken).finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  async #refreshOnce(staleAccessToken: string): Promise<void> {
    const session = await this.#store.get();
    if (session === null) {
      throw new AuthenticationError(401, undefined, new Headers(), 'Not logged in: call login() first');
    }
    if (session.accessToken !== staleAccessToken && Date.now() < session.accessTokenExpiresAt - EXPIRY_MARGIN_MS) return;
    try {
      if (session.refreshToken === null) {
        await this.#renewBrowserSession();
      } else {
        const pair = await unwrap(this.#api.POST('/v1/auth/refresh', { body: { refresh_token: session.refreshToken } }));
        await this.#store.set(toStored(pair, pair.refresh_token));
      }
    } catch (error) {
      // A refused refresh ends the session; a network failure or a 5xx leaves it for the next try.
      if (error instanceof AuthenticationError || error instanceof BadRequestError) await this.#store.clear();
      throw error;
    }
  }

  /** A fresh access token for the browser session, through the HttpOnly cookie (rotated by the server). */
  async #renewBrowserSession(): Promise<void> {
    const renewed = await unwrap(this.#api.POST('/v1/auth/session/refresh', { body: {} }));
    await this.#store.set(toStored(renewed, null));
  }
}

/** The session to keep for an answer carrying an access token; `refreshToken` is null for a browser session. */
function toStored(answer: { access_token: string; expires_in: number }, refreshToken: string | null): StoredSession {
  return { accessToken: answer.access_token, refreshToken, accessTokenExpiresAt: Date.now() + answer.expires_in * 1000 };
}
