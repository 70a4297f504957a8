/**
 * First-run setup (public).
 */
import type { SetupRequest, SetupStatus, User } from '../types.js';
import type { RequestOptions } from '../request-options.js';
import type { Api } from './api.js';
import { unwrap } from './unwrap.js';

/** `client.setup`. */
export class SetupResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /v1/admin/setup/status`: whether the first administrator still has to be created. */
  status(options?: RequestOptions): Promise<SetupStatus> {
    return unwrap(this.#api.GET('/v1/admin/setup/status', this.#api.callInit(options)));
  }

  /**
   * `POST /v1/admin/setup`: creates the first administrator. Only the first call succeeds; later ones
   * throw a `PermissionDeniedError` with code `setup_already_completed`.
   */
  createAdmin(body: SetupRequest, options?: RequestOptions): Promise<User> {
    return unwrap(this.#api.POST('/v1/admin/setup', { ...this.#api.callInit(options), body }));
  }
}
