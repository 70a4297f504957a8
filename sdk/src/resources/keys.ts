/**
 * API keys (`keys:create` for one's own, `keys:manage` for everyone's).
 */
import type { ApiKey, ApiKeyCreate, ApiKeyCreated, ApiKeyUpdate, BannedIp, ModelPermission, UsageLimits } from '../types.js';
import type { RequestOptions } from '../request-options.js';
import type { Api } from './api.js';
import { unwrap } from './unwrap.js';

/**
 * openapi-fetch's `Writable<>` turns the `permission_value: null` of the `all` model restriction into
 * `never`, so bodies carrying model restrictions are passed through this. The methods' own signatures
 * stay typed from the contract.
 */
const asRequestBody = <T>(body: T): never => body as never;

/** `client.keys`. */
export class KeysResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /v1/admin/keys`: one's own keys, or (with `keys:manage`) everyone's or one owner's. */
  list(filter: { owner?: string } = {}, options?: RequestOptions): Promise<ApiKey[]> {
    return unwrap(this.#api.GET('/v1/admin/keys', { ...this.#api.callInit(options), params: { query: filter.owner === undefined ? {} : { owner: filter.owner } } }));
  }

  /** `POST /v1/admin/keys`: the answer's `key` is the plaintext, shown this once. */
  create(body: ApiKeyCreate, options?: RequestOptions): Promise<ApiKeyCreated> {
    return unwrap(this.#api.POST('/v1/admin/keys', { ...this.#api.callInit(options), body: asRequestBody(body) }));
  }

  /** `GET /v1/admin/keys/{key_id}`. */
  get(keyId: string, options?: RequestOptions): Promise<ApiKey> {
    return unwrap(this.#api.GET('/v1/admin/keys/{key_id}', { ...this.#api.callInit(options), params: { path: { key_id: keyId } } }));
  }

  /** `PUT /v1/admin/keys/{key_id}`: rename, describe, enable or disable, expire, restrict. */
  update(keyId: string, body: ApiKeyUpdate, options?: RequestOptions): Promise<ApiKey> {
    return unwrap(this.#api.PUT('/v1/admin/keys/{key_id}', { ...this.#api.callInit(options), params: { path: { key_id: keyId } }, body: asRequestBody(body) }));
  }

  /**
   * `PUT /v1/admin/keys/{key_id}` with `limits`: replaces the key's usage limits (none may exceed
   * its owner's); null removes them, leaving the owner's.
   *
   * @example
   * await client.keys.setLimits(keyId, { requests_per_minute: 60, max_concurrent_requests: 4 });
   */
  setLimits(keyId: string, limits: UsageLimits | null, options?: RequestOptions): Promise<ApiKey> {
    return this.update(keyId, { limits }, options);
  }

  /** `DELETE /v1/admin/keys/{key_id}`: the key fails on its next use. */
  async delete(keyId: string, options?: RequestOptions): Promise<void> {
    await unwrap(this.#api.DELETE('/v1/admin/keys/{key_id}', { ...this.#api.callInit(options), params: { path: { key_id: keyId } } }));
  }

  /** `GET /v1/admin/keys/{key_id}/reveal` (`keys:manage`): the plaintext key. */
  async reveal(keyId: string, options?: RequestOptions): Promise<string> {
    const body = await unwrap(this.#api.GET('/v1/admin/keys/{key_id}/reveal', { ...this.#api.callInit(options), params: { path: { key_id: keyId } } }));
    return body.key;
  }

  /** `GET /v1/admin/keys/{key_id}/permissions`: the key's model restrictions. */
  async getModelPermissions(keyId: string, options?: RequestOptions): Promise<ModelPermission[]> {
    const body = await unwrap(this.#api.GET('/v1/admin/keys/{key_id}/permissions', { ...this.#api.callInit(options), params: { path: { key_id: keyId } } }));
    return body.model_permissions;
  }

  /** `PUT /v1/admin/keys/{key_id}/permissions` (`keys:manage`): an empty list denies every model. */
  async setModelPermissions(keyId: string, modelPermissions: ModelPermission[], options?: RequestOptions): Promise<ModelPermission[]> {
    const body = await unwrap(
      this.#api.PUT('/v1/admin/keys/{key_id}/permissions', { ...this.#api.callInit(options), params: { path: { key_id: keyId } }, body: asRequestBody({ model_permissions: modelPermissions }) }),
    );
    return body.model_permissions;
  }

  /** `GET /v1/admin/keys/{key_id}/banned` (`admin`): the client IPs the key is banned from, with the time left. */
  listBans(keyId: string, options?: RequestOptions): Promise<BannedIp[]> {
    return unwrap(this.#api.GET('/v1/admin/keys/{key_id}/banned', { ...this.#api.callInit(options), params: { path: { key_id: keyId } } }));
  }

  /** `POST /v1/admin/keys/{key_id}/unban` (`admin`): lifts the key's ban from `ip`; resolves to how many were lifted (0 or 1). */
  async unban(keyId: string, ip: string, options?: RequestOptions): Promise<number> {
    return (await unwrap(this.#api.POST('/v1/admin/keys/{key_id}/unban', { ...this.#api.callInit(options), params: { path: { key_id: keyId } }, body: { ip } }))).unbanned;
  }

  /** `POST /v1/admin/keys/{key_id}/unban-all` (`admin`): lifts every ban of the key; resolves to how many. */
  async unbanAll(keyId: string, options?: RequestOptions): Promise<number> {
    return (await unwrap(this.#api.POST('/v1/admin/keys/{key_id}/unban-all', { ...this.#api.callInit(options), params: { path: { key_id: keyId } } }))).unbanned;
  }
}
