/**
 * First-run setup and user administration, with the rules of the spec: nobody grants what they do
 * not hold, nobody acts on a user holding permissions they lack, nobody changes their own account
 * through the admin routes, and the last enabled administrator stays.
 */
import { randomUUID } from 'node:crypto';
import type { ServerConfig } from '../config.js';
import { ApiError } from '../errors.js';
import { hashPassword } from '../crypto/passwords.js';
import { assertPasswordAcceptable } from '../crypto/password-policy.js';
import { normalizePermissions, type Permission, type PermissionInput } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';
import type { Storage } from '../storage/storage.js';
import type { UserRecord } from '../storage/users-repository.js';
import { assertMayGrant, assertOutranks } from './access-rules.js';

/** A change of a user's state or permissions. */
export interface UserChanges {
  enabled?: boolean;
  permissions?: readonly PermissionInput[];
}

/** The result of a change that may have used legacy permission names. */
export interface Changed<T> {
  value: T;
  usedLegacyNames: boolean;
}

const setupDone = () => new ApiError('setup_already_completed', 'Setup already completed; an account already exists.');

/** Creates and administers users. */
export class UserService {
  readonly #storage: Storage;
  readonly #config: ServerConfig;

  constructor(storage: Storage, config: ServerConfig) {
    this.#storage = storage;
    this.#config = config;
  }

  /** True while no account exists. */
  needsSetup(): boolean {
    return this.#storage.users.count() === 0;
  }

  /**
   * Creates the first administrator. Refused before any hashing once an account exists; the final
   * check and the insert share one write transaction, so concurrent calls create exactly one.
   */
  async createFirstAdmin(username: string, password: string): Promise<UserRecord> {
    if (!this.needsSetup()) throw setupDone();
    assertPasswordAcceptable(password, this.#config.passwordMinLength, username, 'password');
    const passwordHash = await hashPassword(password);
    const id = randomUUID();
    return this.#storage.transaction(() => {
      if (!this.needsSetup()) throw setupDone();
      this.#storage.users.create({ id, username, passwordHash, source: 'setup', permissions: ['admin'], mustChangePassword: false, now: Date.now() });
      return this.#mustFind(id);
    });
  }

  list(): UserRecord[] {
    return this.#storage.users.list();
  }

  /** The user with `id`, or 404. */
  get(id: string): UserRecord {
    return this.#mustFind(id);
  }

  /** Creates a user holding only permissions the caller holds. */
  async create(
    caller: Principal,
    input: { username: string; password: string; permissions?: readonly PermissionInput[]; mustChangePassword?: boolean },
  ): Promise<Changed<UserRecord>> {
    const { permissions, usedLegacyNames } = normalizePermissions(input.permissions ?? []);
    assertMayGrant(caller.permissions, permissions);
    if (this.#storage.users.findByUsername(input.username) !== null) throw usernameTaken(input.username);
    assertPasswordAcceptable(input.password, this.#config.passwordMinLength, input.username, 'password');
    const passwordHash = await hashPassword(input.password);
    const id = randomUUID();
    const user = this.#storage.transaction(() => {
      if (this.#storage.users.findByUsername(input.username) !== null) throw usernameTaken(input.username);
      this.#storage.users.create({
        id,
        username: input.username,
        passwordHash,
        source: 'local',
        permissions,
        mustChangePassword: input.mustChangePassword ?? false,
        now: Date.now(),
      });
      return this.#mustFind(id);
    });
    return { value: user, usedLegacyNames };
  }

  /** Enables, disables or re-permissions another user. */
  update(caller: Principal, id: string, changes: UserChanges): Changed<UserRecord> {
    const target = this.#mustFind(id);
    this.#assertMayAdminister(caller, target);
    let permissions: Permission[] | undefined;
    let usedLegacyNames = false;
    if (changes.permissions !== undefined) {
      ({ permissions, usedLegacyNames } = normalizePermissions(changes.permissions));
      assertMayGrant(caller.permissions, permissions);
    }
    const user = this.#storage.transaction(() => {
      const current = this.#mustFind(id);
      const losesAdmin =
        current.enabled &&
        current.permissions.includes('admin') &&
        (changes.enabled === false || (permissions !== undefined && !permissions.includes('admin')));
      if (losesAdmin) this.#assertNotLastAdmin();
      const now = Date.now();
      if (permissions !== undefined) this.#storage.users.setPermissions(id, permissions, now);
      if (changes.enabled !== undefined && changes.enabled !== current.enabled) {
        this.#storage.users.setEnabled(id, changes.enabled, now);
        if (!changes.enabled) this.#storage.sessions.deleteFamiliesOfUser(id);
      }
      return this.#mustFind(id);
    });
    return { value: user, usedLegacyNames };
  }

  /** Deletes another user with their keys and sessions. */
  delete(caller: Principal, id: string): void {
    const target = this.#mustFind(id);
    this.#assertMayAdminister(caller, target);
    this.#storage.transaction(() => {
      const current = this.#mustFind(id);
      if (current.enabled && current.permissions.includes('admin')) this.#assertNotLastAdmin();
      this.#storage.apiKeys.keepTombstones({ userId: id }, Date.now());
      this.#storage.users.delete(id);
    });
  }

  /**
   * Sets a user's password and ends their sessions. For one's own account the current password is
   * needed as well.
   */
  async setPassword(
    caller: Principal,
    id: string,
    input: { newPassword: string; mustChangePassword?: boolean; verifyCurrentPassword: (target: UserRecord) => Promise<void> },
  ): Promise<void> {
    const target = this.#mustFind(id);
    if (caller.user?.id === target.id) {
      if (caller.apiKey !== null) {
        throw new ApiError('permission_denied', 'An API key cannot change its owner\'s password: sign in with the password to change it');
      }
      await input.verifyCurrentPassword(target);
    } else {
      assertOutranks(caller.permissions, target.permissions, 'This user');
    }
    assertPasswordAcceptable(input.newPassword, this.#config.passwordMinLength, target.username, 'new_password');
    const passwordHash = await hashPassword(input.newPassword);
    this.#storage.transaction(() => {
      this.#mustFind(id);
      this.#storage.users.setPassword(id, passwordHash, input.mustChangePassword ?? false, Date.now());
      this.#storage.sessions.deleteFamiliesOfUser(id);
    });
  }

  #assertMayAdminister(caller: Principal, target: UserRecord): void {
    if (caller.user?.id === target.id) {
      throw new ApiError('cannot_modify_self', 'You cannot change your own permissions, state or account here');
    }
    assertOutranks(caller.permissions, target.permissions, 'This user');
  }

  #assertNotLastAdmin(): void {
    if (this.#storage.users.countEnabledAdmins() <= 1) {
      throw new ApiError('last_admin', 'This is the last enabled administrator; it cannot be disabled, deleted or lose admin');
    }
  }

  #mustFind(id: string): UserRecord {
    const user = this.#storage.users.findById(id);
    if (user === null) throw new ApiError('user_not_found', 'User not found');
    return user;
  }
}

function usernameTaken(username: string): ApiError {
  return new ApiError('username_taken', `A user named ${username} already exists`, { param: 'username' });
}
