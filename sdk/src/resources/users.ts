/**
 * User administration (`users:manage`).
 */
import type { PermissionInput, User, UserCreate, UserPasswordSet, UserUpdate, Permission, UsageLimits } from '../types.js';
import type { RequestOptions } from '../request-options.js';
import type { Api } from './api.js';
import { unwrap } from './unwrap.js';

/** `client.users`. */
export class UsersResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /v1/admin/users`. */
  list(options?: RequestOptions): Promise<User[]> {
    return unwrap(this.#api.GET('/v1/admin/users', this.#api.callInit(options)));
  }

  /** `POST /v1/admin/users`: the caller may grant only permissions the caller holds. */
  create(body: UserCreate, options?: RequestOptions): Promise<User> {
    return unwrap(this.#api.POST('/v1/admin/users', { ...this.#api.callInit(options), body }));
  }

  /** `GET /v1/admin/users/{user_id}`. */
  get(userId: string, options?: RequestOptions): Promise<User> {
    return unwrap(this.#api.GET('/v1/admin/users/{user_id}', { ...this.#api.callInit(options), params: { path: { user_id: userId } } }));
  }

  /** `PUT /v1/admin/users/{user_id}`: enable, disable or re-permission another user. */
  update(userId: string, body: UserUpdate, options?: RequestOptions): Promise<User> {
    return unwrap(this.#api.PUT('/v1/admin/users/{user_id}', { ...this.#api.callInit(options), params: { path: { user_id: userId } }, body }));
  }

  /**
   * `PUT /v1/admin/users/{user_id}` with `limits`: replaces the user's usage limits, which apply to
   * all of the user's calls, every key included; null removes them.
   *
   * @example
   * await client.users.setLimits(userId, { tokens_per_minute: 100_000, token_budget: { tokens: 5_000_000, period: 'month' } });
   */
  setLimits(userId: string, limits: UsageLimits | null, options?: RequestOptions): Promise<User> {
    return this.update(userId, { limits }, options);
  }

  /** `DELETE /v1/admin/users/{user_id}`: their keys and sessions go with them. */
  async delete(userId: string, options?: RequestOptions): Promise<void> {
    await unwrap(this.#api.DELETE('/v1/admin/users/{user_id}', { ...this.#api.callInit(options), params: { path: { user_id: userId } } }));
  }

  /** `PUT /v1/admin/users/{user_id}/password`: ends the user's sessions. */
  async setPassword(userId: string, body: UserPasswordSet, options?: RequestOptions): Promise<void> {
    await unwrap(this.#api.PUT('/v1/admin/users/{user_id}/password', { ...this.#api.callInit(options), params: { path: { user_id: userId } }, body }));
  }

  /** `GET /v1/admin/users/{user_id}/permissions`. */
  async getPermissions(userId: string, options?: RequestOptions): Promise<Permission[]> {
    const body = await unwrap(this.#api.GET('/v1/admin/users/{user_id}/permissions', { ...this.#api.callInit(options), params: { path: { user_id: userId } } }));
    return body.permissions as Permission[];
  }

  /** `PUT /v1/admin/users/{user_id}/permissions`: replaces them; returns what is stored. */
  async setPermissions(userId: string, permissions: PermissionInput[], options?: RequestOptions): Promise<Permission[]> {
    const body = await unwrap(
      this.#api.PUT('/v1/admin/users/{user_id}/permissions', { ...this.#api.callInit(options), params: { path: { user_id: userId } }, body: { permissions } }),
    );
    return body.permissions as Permission[];
  }
}
