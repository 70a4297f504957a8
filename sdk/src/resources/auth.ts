/**
 * The caller's own account.
 */
import type { Me, OidcCodeExchange, OidcDeviceAuthorization, OidcLoginOptions, OidcSettings, OwnPasswordChange, TokenPair } from '../types.js';
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

  /** `GET /v1/auth/oidc/config`: whether the server offers single sign-on, and the provider's name. */
  ssoOptions(options?: RequestOptions): Promise<OidcLoginOptions> {
    return unwrap(this.#api.GET('/v1/auth/oidc/config', this.#api.callInit(options)));
  }

  /** `GET /v1/admin/oidc`: the single sign-on configuration, the client secret hidden (needs `admin`). */
  ssoSettings(options?: RequestOptions): Promise<OidcSettings> {
    return unwrap(this.#api.GET('/v1/admin/oidc', this.#api.callInit(options)));
  }

  /**
   * `POST /v1/auth/oidc/token`: completes a single sign-on started with a `cli_redirect_uri`: the
   * one-time code the server sent to that address, with the PKCE verifier of `cli_code_challenge`.
   * This client is then logged in with the pair it gets back.
   */
  async exchangeSsoCode(body: OidcCodeExchange, options?: RequestOptions): Promise<TokenPair> {
    const pair = await unwrap(this.#api.POST('/v1/auth/oidc/token', { ...this.#api.callInit(options), body }));
    await this.#onNewPair(pair);
    return pair;
  }

  /**
   * `POST /v1/auth/oidc/device`: starts a single sign-on by the device authorization grant (where
   * the provider offers it). Show `verification_uri` and `user_code`, then poll {@link pollSsoDevice}.
   */
  startSsoDevice(options?: RequestOptions): Promise<OidcDeviceAuthorization> {
    return unwrap(this.#api.POST('/v1/auth/oidc/device', { ...this.#api.callInit(options), body: {} }));
  }

  /**
   * `POST /v1/auth/oidc/device/token`: polls a device sign-in. Throws a `BadRequestError` with code
   * `oidc_authorization_pending` (or `oidc_slow_down`) until the person approved; then this client
   * is logged in with the pair it gets back.
   */
  async pollSsoDevice(deviceCode: string, options?: RequestOptions): Promise<TokenPair> {
    const pair = await unwrap(this.#api.POST('/v1/auth/oidc/device/token', { ...this.#api.callInit(options), body: { device_code: deviceCode } }));
    await this.#onNewPair(pair);
    return pair;
  }
}
