/**
 * Operations: the model cache (`cache:*`), per-model virtual environments (`virtualenv:*`), the
 * server's recent log lines (`logs:list`) and its Prometheus metrics (`monitor:view`).
 */
import type { DeletedEntry, DirectoryListing, LogLines } from '../types.js';
import type { Api } from './api.js';
import { unwrap } from './unwrap.js';

/** `client.cache`: `{SVC_HOME}/cache` on the server. */
export class CacheResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /v1/cache/models`. */
  list(): Promise<DirectoryListing> {
    return unwrap(this.#api.GET('/v1/cache/models'));
  }

  /** `DELETE /v1/cache/models?model_name=`: a name, never a path. */
  delete(modelName: string): Promise<DeletedEntry> {
    return unwrap(this.#api.DELETE('/v1/cache/models', { params: { query: { model_name: modelName } } }));
  }
}

/** `client.virtualenvs`: `{SVC_HOME}/virtualenv` on the server. */
export class VirtualenvsResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /v1/virtualenvs`. */
  list(): Promise<DirectoryListing> {
    return unwrap(this.#api.GET('/v1/virtualenvs'));
  }

  /** `DELETE /v1/virtualenvs?model_name=`. */
  delete(modelName: string): Promise<DeletedEntry> {
    return unwrap(this.#api.DELETE('/v1/virtualenvs', { params: { query: { model_name: modelName } } }));
  }
}

/** `client.cluster`. */
export class ClusterResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /v1/cluster/logs`: the newest `lines` (default 200, at most 1000) log lines, secrets redacted. */
  async logs(options: { lines?: number } = {}): Promise<LogLines['lines']> {
    const query = options.lines === undefined ? {} : { lines: options.lines };
    return (await unwrap(this.#api.GET('/v1/cluster/logs', { params: { query } }))).lines;
  }
}

/** `client.monitoring`. */
export class MonitoringResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /metrics`: the Prometheus text exposition. */
  metrics(): Promise<string> {
    return unwrap(this.#api.GET('/metrics', { parseAs: 'text' }));
  }
}
