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
import { userOrNull, type UserRecord } from '../auth/records.js';
import { limitsFromWire, storedLimits, type UsageLimitsWire } from '../limits/usage-limits.js';
import type { Clock } from '../runtime/clock.js';
import type { Storage, StorageTx } from '../storage/port/index.js';
import { assertMayGrant, assertOutranks } from './access-rules.js';

/** A change of a user's state or permissions. */
export interface UserChanges {
  enabled?: boolean;
  permissions?: readonly PermissionInput[];
  /** Replaces the user's usage limits (null: none). */
  limits?: UsageLimitsWire | null;
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
  readonly #clock: Clock;

  constructor(storage: Storage, config: ServerConfig, clock: Clock) {
    this.#storage = storage;
    this.#config = config;
    this.#clock = clock;
  }

  /** True while no account exists. */
  async needsSetup(): Promise<boolean> {
    return !(await this.#storage.users.exists());
  }

  /**
   * Creates the first administrator. Refused before any hashing once an account exists; the final
   * check and the insert share one write transaction, so concurrent calls create exactly one.
   */
  async createFirstAdmin(username: string, password: string): Promise<UserRecord> {
    if (!(await this.needsSetup())) throw setupDone();
    assertPasswordAcceptable(password, this.#config.passwordMinLength, username, 'password');
    const passwordHash = await hashPassword(password);
    const id = randomUUID();
    const now = this.#clock.now();
    return this.#storage.transaction(
      async (tx) => {
        if (await tx.users.exists()) throw setupDone();
        await tx.users.create({ id, username, passwordHash, source: 'setup', permissions: ['admin'], mustChangePassword: false, now });
        return mustFind(tx, id);
      },
      { locks: ['setup'] },
    );
  }

  async list(): Promise<UserRecord[]> {
    return (await this.#storage.users.list()).map((user) => userOrNull(user) as UserRecord);
  }

  /** The user with `id`, or 404. */
  get(id: string): Promise<UserRecord> {
    return mustFind(this.#storage, id);
  }

  /** Creates a user holding only permissions the caller holds. */
  async create(
    caller: Principal,
    input: { username: string; password: string; permissions?: readonly PermissionInput[]; mustChangePassword?: boolean },
  ): Promise<Changed<UserRecord>> {
    const { permissions, usedLegacyNames } = normalizePermissions(input.permissions ?? []);
    assertMayGrant(caller.permissions, permissions);
    if ((await this.#storage.users.findByUsername(input.username)) !== null) throw usernameTaken(input.username);
    assertPasswordAcceptable(input.password, this.#config.passwordMinLength, input.username, 'password');
    const passwordHash = await hashPassword(input.password);
    const id = randomUUID();
    const user = await this.#storage.transaction(async (tx) => {
      const created = await tx.users.create({
        id,
        username: input.username,
        passwordHash,
        source: 'local',
        permissions,
        mustChangePassword: input.mustChangePassword ?? false,
        now: this.#clock.now(),
      });
      if (created === 'username_taken') throw usernameTaken(input.username);
      return mustFind(tx, id);
    });
    return { value: user, usedLegacyNames };
  }

  /** Enables, disables or re-permissions another user. */
  async update(caller: Principal, id: string, changes: UserChanges): Promise<Changed<UserRecord>> {
    const target = await mustFind(this.#storage, id);
    this.#assertMayAdminister(caller, target);
    let permissions: Permission[] | undefined;
    let usedLegacyNames = false;
    if (changes.permissions !== undefined) {
      ({ permissions, usedLegacyNames } = normalizePermissions(changes.permissions));
      assertMayGrant(caller.permissions, permissions);
    }
    const now = this.#clock.now();
    const user = await this.#storage.transaction(
      async (tx) => {
        const current = await mustFind(tx, id, true);
        const losesAdmin =
          current.enabled &&
          current.permissions.includes('admin') &&
          (changes.enabled === false || (permissions !== undefined && !permissions.includes('admin')));
        if (losesAdmin) await assertNotLastAdmin(tx);
        if (permissions !== undefined) await tx.users.setPermissions(id, permissions, now);
        if (changes.limits !== undefined) await tx.users.setLimits(id, storedLimits(limitsFromWire(changes.limits)), now);
        if (changes.enabled !== undefined && changes.enabled !== current.enabled) {
          await tx.users.setEnabled(id, changes.enabled, now);
          if (!changes.enabled) await tx.sessions.deleteFamiliesOfUser(id);
        }
        return mustFind(tx, id);
      },
      { locks: ['admins'] },
    );
    return { value: user, usedLegacyNames };
  }

  /** Deletes another user with their keys and sessions. */
  async delete(caller: Principal, id: string): Promise<void> {
    const target = await mustFind(this.#storage, id);
    this.#assertMayAdminister(caller, target);
    const now = this.#clock.now();
    await this.#storage.transaction(
      async (tx) => {
        const current = await mustFind(tx, id, true);
        if (current.enabled && current.permissions.includes('admin')) await assertNotLastAdmin(tx);
        await tx.keys.keepTombstones({ userId: id }, now);
        await tx.users.delete(id);
      },
      { locks: ['admins'] },
    );
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
    const target = await mustFind(this.#storage, id);
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
    const now = this.#clock.now();
    await this.#storage.transaction(async (tx) => {
      await mustFind(tx, id, true);
      await tx.users.setPassword(id, passwordHash, input.mustChangePassword ?? false, now);
      await tx.sessions.deleteFamiliesOfUser(id);
    });
  }

  #assertMayAdminister(caller: Principal, target: UserRecord): void {
    if (caller.user?.id === target.id) {
      throw new ApiError('cannot_modify_self', 'You cannot change your own permissions, state or account here');
    }
    assertOutranks(caller.permissions, target.permissions, 'This user');
  }

}

/** Refuses a change that would leave no enabled administrator (inside the `admins`-locked transaction). */
async function assertNotLastAdmin(tx: StorageTx): Promise<void> {
  if ((await tx.users.countEnabledHolding('admin')) <= 1) {
    throw new ApiError('last_admin', 'This is the last enabled administrator; it cannot be disabled, deleted or lose admin');
  }
}

/** The user `id`, or 404; `forUpdate` locks the row inside a transaction. */
async function mustFind(stores: Pick<StorageTx, 'users'>, id: string, forUpdate = false): Promise<UserRecord> {
  const user = userOrNull(await stores.users.findById(id, forUpdate ? { lock: 'update' } : {}));
  if (user === null) throw new ApiError('user_not_found', 'User not found');
  return user;
}

function usernameTaken(username: string): ApiError {
  return new ApiError('username_taken', `A user named ${username} already exists`, { param: 'username' });
}
