/**
 * The caller's own account.
 */
import type { Me, OwnPasswordChange, TokenPair } from '../types.js';
import type { RequestOptions } from '../request-options.js';
import type { Api } from './api.js';
import { unwrap } from './unwrap.js';

/** `client.auth`. */
export class AuthResource {
  readonly #api: Api;
  readonly #onNewPair: (pair: TokenPair) => Promise<void>;

  constructor(api: Api, onNewPair: (pair: TokenPair) => Promise<void>) {
    this.#api = api;
    this.#onNewPair = onNewPair;
  }

  /** `GET /v1/auth/me`: who is calling, and the permissions in force for this call. */
  me(options?: RequestOptions): Promise<Me> {
    return unwrap(this.#api.GET('/v1/auth/me', this.#api.callInit(options)));
  }

  /**
   * `PUT /v1/auth/me/password`: changes one's own password (the current one is needed). Every other
   * session of the account ends; this client keeps working with the fresh pair it gets back.
   */
  async changePassword(body: OwnPasswordChange, options?: RequestOptions): Promise<TokenPair> {
    const pair = await unwrap(this.#api.PUT('/v1/auth/me/password', { ...this.#api.callInit(options), body }));
    await this.#onNewPair(pair);
    return pair;
  }
}
