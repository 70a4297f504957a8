/**
 * Brute-force protection (`admin`): settings, bans of client IPs and of (IP, credential) pairs,
 * and locked accounts.
 */
import type { BannedIp, BannedKey, LockedAccount, SecuritySettings, SecuritySettingsUpdate, UsageLimits } from '../types.js';
import type { RequestOptions } from '../request-options.js';
import type { Api } from './api.js';
import { unwrap } from './unwrap.js';

/** `client.security`. */
export class SecurityResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** `GET /v1/admin/security/rate-limit`: the settings in force. */
  getSettings(options?: RequestOptions): Promise<SecuritySettings> {
    return unwrap(this.#api.GET('/v1/admin/security/rate-limit', this.#api.callInit(options)));
  }

  /**
   * `PUT /v1/admin/security/rate-limit`: changes any subset of the settings. An invalid value
   * throws `BadRequestError` and changes nothing.
   *
   * @example
   * await client.security.updateSettings({ login: { failures_before_lockout: 10 } });
   */
  updateSettings(update: SecuritySettingsUpdate, options?: RequestOptions): Promise<SecuritySettings> {
    return unwrap(this.#api.PUT('/v1/admin/security/rate-limit', { ...this.#api.callInit(options), body: update }));
  }

  /**
   * `PUT /v1/admin/security/rate-limit` with `default_key_limits`: the usage limits new keys get
   * when their creator sets none (existing keys keep theirs); null for none.
   */
  setDefaultKeyLimits(limits: UsageLimits | null, options?: RequestOptions): Promise<SecuritySettings> {
    return this.updateSettings({ default_key_limits: limits }, options);
  }

  /** `GET /v1/admin/security/banned-ips`: active IP bans with the time left. */
  listBannedIps(options?: RequestOptions): Promise<BannedIp[]> {
    return unwrap(this.#api.GET('/v1/admin/security/banned-ips', this.#api.callInit(options)));
  }

  /** `POST /v1/admin/security/unban-ip`: resolves to how many bans were lifted (0 or 1). */
  async unbanIp(ip: string, options?: RequestOptions): Promise<number> {
    return (await unwrap(this.#api.POST('/v1/admin/security/unban-ip', { ...this.#api.callInit(options), body: { ip } }))).unbanned;
  }

  /** `POST /v1/admin/security/unban-all-ips`: resolves to how many bans were lifted. */
  async unbanAllIps(options?: RequestOptions): Promise<number> {
    return (await unwrap(this.#api.POST('/v1/admin/security/unban-all-ips', this.#api.callInit(options)))).unbanned;
  }

  /** `GET /v1/admin/security/banned-keys`: active (IP, credential) bans. */
  listBannedKeys(options?: RequestOptions): Promise<BannedKey[]> {
    return unwrap(this.#api.GET('/v1/admin/security/banned-keys', this.#api.callInit(options)));
  }

  /** `POST /v1/admin/security/unban-key`: `keyId` as listed (`sha256:…`). */
  async unbanKey(ip: string, keyId: string, options?: RequestOptions): Promise<number> {
    return (await unwrap(this.#api.POST('/v1/admin/security/unban-key', { ...this.#api.callInit(options), body: { ip, key_id: keyId } }))).unbanned;
  }

  /** `POST /v1/admin/security/unban-all-keys`. */
  async unbanAllKeys(options?: RequestOptions): Promise<number> {
    return (await unwrap(this.#api.POST('/v1/admin/security/unban-all-keys', this.#api.callInit(options)))).unbanned;
  }

  /** `GET /v1/admin/security/locked-accounts`: accounts locked after failed logins. */
  listLockedAccounts(options?: RequestOptions): Promise<LockedAccount[]> {
    return unwrap(this.#api.GET('/v1/admin/security/locked-accounts', this.#api.callInit(options)));
  }

  /** `POST /v1/admin/security/unlock-account`: also resets the account's growing wait. */
  async unlockAccount(userId: string, options?: RequestOptions): Promise<number> {
    return (await unwrap(this.#api.POST('/v1/admin/security/unlock-account', { ...this.#api.callInit(options), body: { user_id: userId } }))).unbanned;
  }

  /** `POST /v1/admin/security/unlock-all-accounts`. */
  async unlockAllAccounts(options?: RequestOptions): Promise<number> {
    return (await unwrap(this.#api.POST('/v1/admin/security/unlock-all-accounts', this.#api.callInit(options)))).unbanned;
  }
}
