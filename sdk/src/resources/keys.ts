/**
 * API keys (`keys:create` for one's own, `keys:manage` for everyone's).
 */
import type { ApiKey, ApiKeyCreate, ApiKeyCreated, ApiKeyUpdate, BannedIp, ModelPermission } from '../types.js';
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
  list(options: { owner?: string } = {}): Promise<ApiKey[]> {
    return unwrap(this.#api.GET('/v1/admin/keys', { params: { query: options.owner === undefined ? {} : { owner: options.owner } } }));
  }

  /** `POST /v1/admin/keys`: the answer's `key` is the plaintext, shown this once. */
  create(body: ApiKeyCreate): Promise<ApiKeyCreated> {
    return unwrap(this.#api.POST('/v1/admin/keys', { body: asRequestBody(body) }));
  }

  /** `GET /v1/admin/keys/{key_id}`. */
  get(keyId: string): Promise<ApiKey> {
    return unwrap(this.#api.GET('/v1/admin/keys/{key_id}', { params: { path: { key_id: keyId } } }));
  }

  /** `PUT /v1/admin/keys/{key_id}`: rename, describe, enable or disable, expire, restrict. */
  update(keyId: string, body: ApiKeyUpdate): Promise<ApiKey> {
    return unwrap(this.#api.PUT('/v1/admin/keys/{key_id}', { params: { path: { key_id: keyId } }, body: asRequestBody(body) }));
  }

  /** `DELETE /v1/admin/keys/{key_id}`: the key fails on its next use. */
  async delete(keyId: string): Promise<void> {
    await unwrap(this.#api.DELETE('/v1/admin/keys/{key_id}', { params: { path: { key_id: keyId } } }));
  }

  /** `GET /v1/admin/keys/{key_id}/reveal` (`keys:manage`): the plaintext key. */
  async reveal(keyId: string): Promise<string> {
    const body = await unwrap(this.#api.GET('/v1/admin/keys/{key_id}/reveal', { params: { path: { key_id: keyId } } }));
    return body.key;
  }

  /** `GET /v1/admin/keys/{key_id}/permissions`: the key's model restrictions. */
  async getModelPermissions(keyId: string): Promise<ModelPermission[]> {
    const body = await unwrap(this.#api.GET('/v1/admin/keys/{key_id}/permissions', { params: { path: { key_id: keyId } } }));
    return body.model_permissions;
  }

  /** `PUT /v1/admin/keys/{key_id}/permissions` (`keys:manage`): an empty list denies every model. */
  async setModelPermissions(keyId: string, modelPermissions: ModelPermission[]): Promise<ModelPermission[]> {
    const body = await unwrap(
      this.#api.PUT('/v1/admin/keys/{key_id}/permissions', { params: { path: { key_id: keyId } }, body: asRequestBody({ model_permissions: modelPermissions }) }),
    );
    return body.model_permissions;
  }

  /** `GET /v1/admin/keys/{key_id}/banned` (`admin`): the client IPs the key is banned from, with the time left. */
  listBans(keyId: string): Promise<BannedIp[]> {
    return unwrap(this.#api.GET('/v1/admin/keys/{key_id}/banned', { params: { path: { key_id: keyId } } }));
  }

  /** `POST /v1/admin/keys/{key_id}/unban` (`admin`): lifts the key's ban from `ip`; resolves to how many were lifted (0 or 1). */
  async unban(keyId: string, ip: string): Promise<number> {
    return (await unwrap(this.#api.POST('/v1/admin/keys/{key_id}/unban', { params: { path: { key_id: keyId } }, body: { ip } }))).unbanned;
  }

  /** `POST /v1/admin/keys/{key_id}/unban-all` (`admin`): lifts every ban of the key; resolves to how many. */
  async unbanAll(keyId: string): Promise<number> {
    return (await unwrap(this.#api.POST('/v1/admin/keys/{key_id}/unban-all', { params: { path: { key_id: keyId } } }))).unbanned;
  }
}
