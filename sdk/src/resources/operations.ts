/**
 * Operations: the model cache (`cache:*`), per-model virtual environments (`virtualenv:*`), the
 * server's recent log lines (`logs:list`) and its Prometheus metrics (`monitor:view`).
 */
import type { DeletedEntry, DirectoryListing, LogLines } from '../types.js';
import type { RequestOptions } from '../request-options.js';
import type { Api } from './api.js';
import { unwrap } from './unwrap.js';

/** `client.cache`: `{SVC_HOME}/cache` on the server. */
export class CacheResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /v1/cache/models`. */
  list(options?: RequestOptions): Promise<DirectoryListing> {
    return unwrap(this.#api.GET('/v1/cache/models', this.#api.callInit(options)));
  }

  /** `DELETE /v1/cache/models?model_name=`: a name, never a path. */
  delete(modelName: string, options?: RequestOptions): Promise<DeletedEntry> {
    return unwrap(this.#api.DELETE('/v1/cache/models', { ...this.#api.callInit(options), params: { query: { model_name: modelName } } }));
  }
}

/** `client.virtualenvs`: `{SVC_HOME}/virtualenv` on the server. */
export class VirtualenvsResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /v1/virtualenvs`. */
  list(options?: RequestOptions): Promise<DirectoryListing> {
    return unwrap(this.#api.GET('/v1/virtualenvs', this.#api.callInit(options)));
  }

  /** `DELETE /v1/virtualenvs?model_name=`. */
  delete(modelName: string, options?: RequestOptions): Promise<DeletedEntry> {
    return unwrap(this.#api.DELETE('/v1/virtualenvs', { ...this.#api.callInit(options), params: { query: { model_name: modelName } } }));
  }
}

/** `client.cluster`. */
export class ClusterResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /v1/cluster/logs`: the newest `lines` (default 200, at most 1000) log lines, secrets redacted. */
  async logs(filter: { lines?: number } = {}, options?: RequestOptions): Promise<LogLines['lines']> {
    const query = filter.lines === undefined ? {} : { lines: filter.lines };
    return (await unwrap(this.#api.GET('/v1/cluster/logs', { ...this.#api.callInit(options), params: { query } }))).lines;
  }
}

/** `client.monitoring`. */
export class MonitoringResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /metrics`: the Prometheus text exposition. */
  metrics(options?: RequestOptions): Promise<string> {
    return unwrap(this.#api.GET('/metrics', { ...this.#api.callInit(options), parseAs: 'text' }));
  }
}
