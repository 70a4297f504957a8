/**
 * Health and the authentication switch (public).
 */
import type { ClusterAuth, ClusterVersion, ServiceStatus, UiConfig } from '../types.js';
import type { Api } from './api.js';
import { unwrap } from './unwrap.js';

/** `client.health`. */
export class HealthResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /status`: the server is up and its database answers. */
  status(): Promise<ServiceStatus> {
    return unwrap(this.#api.GET('/status'));
  }

  /** `GET /v1/cluster/auth`: whether every other call needs credentials. */
  authEnabled(): Promise<ClusterAuth> {
    return unwrap(this.#api.GET('/v1/cluster/auth'));
  }

  /** `GET /v1/cluster/version`: the server's version (the reference server's shape). */
  version(): Promise<ClusterVersion> {
    return unwrap(this.#api.GET('/v1/cluster/version'));
  }

  /** `GET /v1/cluster/ui_config`: what the reference web UI reads before login. */
  uiConfig(): Promise<UiConfig> {
    return unwrap(this.#api.GET('/v1/cluster/ui_config'));
  }
}
