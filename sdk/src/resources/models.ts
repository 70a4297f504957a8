/**
 * Models (`models:list`, `models:write`) and model families (`models:list`, `models:register`).
 * A key with `model_permissions` sees and reaches only the models they allow.
 */
import type { Model, ModelFamilyDefinition, ModelFamilyDescription, ModelInstance, ModelLaunch, ModelRegistration, ModelType } from '../types.js';
import type { RequestOptions } from '../request-options.js';
import type { Api } from './api.js';
import { unwrap } from './unwrap.js';

/** `client.models`. */
export class ModelsResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /v1/models`: the running models the caller may use. */
  async list(options?: RequestOptions): Promise<Model[]> {
    return (await unwrap(this.#api.GET('/v1/models', this.#api.callInit(options)))).data;
  }

  /** `GET /v1/models/{model_uid}`. */
  get(modelUid: string, options?: RequestOptions): Promise<Model> {
    return unwrap(this.#api.GET('/v1/models/{model_uid}', { ...this.#api.callInit(options), params: { path: { model_uid: modelUid } } }));
  }

  /**
   * `POST /v1/models`: launches a model. Engine `builtin` serves the built-in families (`echo`,
   * `echo-system-first`, `hash-embedding`) and registered ones; engine `upstream` fronts an
   * OpenAI-compatible server.
   *
   * @example
   * await client.models.launch({ model_name: 'echo', model_uid: 'my-echo' });
   * await client.models.launch({ model_name: 'llama3', upstream_base_url: 'http://127.0.0.1:11434/v1' });
   */
  launch(body: ModelLaunch, options?: RequestOptions): Promise<Model> {
    return unwrap(this.#api.POST('/v1/models', { ...this.#api.callInit(options), body }));
  }

  /** `GET /v1/models/instances`: one `READY` instance per running model (what the reference CLI polls after a launch). */
  instances(filter: { model_name?: string; model_uid?: string } = {}, options?: RequestOptions): Promise<ModelInstance[]> {
    return unwrap(this.#api.GET('/v1/models/instances', { ...this.#api.callInit(options), params: { query: filter } }));
  }

  /** `GET /v1/models/{model_uid}/progress`: always 1 for a running model (svc launches at once). */
  async launchProgress(modelUid: string, options?: RequestOptions): Promise<number> {
    return (await unwrap(this.#api.GET('/v1/models/{model_uid}/progress', { ...this.#api.callInit(options), params: { path: { model_uid: modelUid } } }))).progress;
  }

  /** `DELETE /v1/models/{model_uid}`: stops the model; resolves to the model that was stopped. */
  stop(modelUid: string, options?: RequestOptions): Promise<Model> {
    return unwrap(this.#api.DELETE('/v1/models/{model_uid}', { ...this.#api.callInit(options), params: { path: { model_uid: modelUid } } }));
  }
}

/** `client.modelRegistrations`. */
export class ModelRegistrationsResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /v1/model_registrations/{model_type}`: built-in and registered families of a type. */
  list(modelType: ModelType, options?: RequestOptions): Promise<ModelRegistration[]> {
    return unwrap(this.#api.GET('/v1/model_registrations/{model_type}', { ...this.#api.callInit(options), params: { path: { model_type: modelType } } }));
  }

  /** `GET /v1/model_registrations/{model_type}/{model_name}`: one family with its definition. */
  get(modelType: ModelType, modelName: string, options?: RequestOptions): Promise<ModelFamilyDescription> {
    return unwrap(this.#api.GET('/v1/model_registrations/{model_type}/{model_name}', { ...this.#api.callInit(options), params: { path: { model_type: modelType, model_name: modelName } } }));
  }

  /** `POST /v1/model_registrations/{model_type}`: registers a custom family (it persists). */
  register(modelType: ModelType, model: ModelFamilyDefinition, options?: RequestOptions): Promise<ModelRegistration> {
    return unwrap(this.#api.POST('/v1/model_registrations/{model_type}', { ...this.#api.callInit(options), params: { path: { model_type: modelType } }, body: { model } }));
  }

  /** `DELETE /v1/model_registrations/{model_type}/{model_name}`. */
  async unregister(modelType: ModelType, modelName: string, options?: RequestOptions): Promise<void> {
    await unwrap(this.#api.DELETE('/v1/model_registrations/{model_type}/{model_name}', { ...this.#api.callInit(options), params: { path: { model_type: modelType, model_name: modelName } } }));
  }
}
