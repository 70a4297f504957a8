/**
 * Where a logged-in session's tokens live. The default keeps them in memory; the CLI keeps them in a
 * file, a web app wherever it chooses. Any method may be synchronous or asynchronous.
 */

/** A logged-in session. */
export interface StoredSession {
  accessToken: string;
  /**
   * The refresh token, or null for a browser session, whose refresh token the browser holds as an
   * HttpOnly cookie that no script can read (see `Client.startBrowserSession`).
   */
  refreshToken: string | null;
  /** When the access token expires, in epoch milliseconds. */
  accessTokenExpiresAt: number;
}

/** Keeps one session. */
export interface TokenStore {
  get(): StoredSession | null | Promise<StoredSession | null>;
  set(session: StoredSession): void | Promise<void>;
  clear(): void | Promise<void>;
}

/** The default store: the session lives as long as the `Client`. */
export class MemoryTokenStore implements TokenStore {
  #session: StoredSession | null = null;

  get(): StoredSession | null {
    return this.#session;
  }

  set(session: StoredSession): void {
    this.#session = session;
  }

  clear(): void {
    this.#session = null;
  }
}
