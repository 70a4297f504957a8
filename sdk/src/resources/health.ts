/**
 * Health and the authentication switch (public).
 */
import type { ClusterAuth, ClusterVersion, ServiceReadiness, ServiceStatus, UiConfig } from '../types.js';
import type { RequestOptions } from '../request-options.js';
import type { Api } from './api.js';
import { unwrap } from './unwrap.js';

/** `client.health`. */
export class HealthResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /status` (liveness): the server process is up, whether or not its database answers. */
  status(options?: RequestOptions): Promise<ServiceStatus> {
    return unwrap(this.#api.GET('/status', this.#api.callInit(options)));
  }

  /**
   * `GET /ready` (readiness): the server can take traffic (its database answers).
   *
   * @throws {APIError} 503 `service_unavailable` while the database does not answer.
   */
  ready(options?: RequestOptions): Promise<ServiceReadiness> {
    return unwrap(this.#api.GET('/ready', this.#api.callInit(options)));
  }

  /** `GET /v1/cluster/auth`: whether every other call needs credentials. */
  authEnabled(options?: RequestOptions): Promise<ClusterAuth> {
    return unwrap(this.#api.GET('/v1/cluster/auth', this.#api.callInit(options)));
  }

  /** `GET /v1/cluster/version`: the server's version (the reference server's shape). */
  version(options?: RequestOptions): Promise<ClusterVersion> {
    return unwrap(this.#api.GET('/v1/cluster/version', this.#api.callInit(options)));
  }

  /** `GET /v1/cluster/ui_config`: what the reference web UI reads before login. */
  uiConfig(options?: RequestOptions): Promise<UiConfig> {
    return unwrap(this.#api.GET('/v1/cluster/ui_config', this.#api.callInit(options)));
  }
}
