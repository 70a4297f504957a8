/**
 * Users and their permissions. The only module that writes SQL for the `users` and
 * `user_permissions` tables.
 */
import type { Statement } from 'better-sqlite3';
import { allPermissions, type Permission } from '../auth/permissions.js';
import type { ChangeTracker } from './change-tracker.js';
import type { Database } from './database.js';

/** How an account came to be. */
/** `oidc`: created by a sign-in through the OpenID provider (linked in `oidc_identities`). */
export type UserSource = 'setup' | 'local' | 'migrated' | 'oidc';

/** A user as stored, with their permissions. */
export interface UserRecord {
  id: string;
  username: string;
  passwordHash: string;
  source: UserSource;
  enabled: boolean;
  mustChangePassword: boolean;
  tokenVersion: number;
  permissions: Permission[];
  createdAt: number;
  updatedAt: number;
}

/** The fields of a new user. */
export interface NewUser {
  id: string;
  username: string;
  passwordHash: string;
  source: UserSource;
  permissions: readonly Permission[];
  mustChangePassword: boolean;
  now: number;
}

interface UserRow {
  id: string;
  username: string;
  password_hash: string;
  source: UserSource;
  enabled: number;
  must_change_password: number;
  token_version: number;
  created_at: number;
  updated_at: number;
  permissions: string | null;
}

const SELECT_USER = `
  SELECT u.id, u.username, u.password_hash, u.enabled, u.must_change_password, u.token_version, u.created_at, u.updated_at,
    CASE WHEN EXISTS (SELECT 1 FROM oidc_identities i WHERE i.user_id = u.id) THEN 'oidc' ELSE u.source END AS source,
    (SELECT group_concat(permission, ' ') FROM user_permissions p WHERE p.user_id = u.id) AS permissions
  FROM users u`;

const permissionOrder = new Map(allPermissions.map((permission, index) => [permission, index]));

/** Reads and writes users. Every write marks the change tracker. */
export class UsersRepository {
  readonly #db: Database;
  readonly #tracker: ChangeTracker;
  readonly #byId: Statement<[string], UserRow>;
  readonly #byUsername: Statement<[string], UserRow>;
  readonly #all: Statement<[], UserRow>;
  readonly #count: Statement<[], number>;
  readonly #countEnabledAdmins: Statement<[], number>;

  constructor(db: Database, tracker: ChangeTracker) {
    this.#db = db;
    this.#tracker = tracker;
    this.#byId = db.prepare(`${SELECT_USER} WHERE u.id = ?`);
    this.#byUsername = db.prepare(`${SELECT_USER} WHERE u.username = ?`);
    this.#all = db.prepare(`${SELECT_USER} ORDER BY u.created_at, u.username`);
    this.#count = db.prepare<[], number>('SELECT count(*) FROM users').pluck();
    this.#countEnabledAdmins = db
      .prepare<[], number>(
        `SELECT count(*) FROM users u JOIN user_permissions p ON p.user_id = u.id
         WHERE u.enabled = 1 AND p.permission = 'admin'`,
      )
      .pluck();
  }

  /** How many users exist. */
  count(): number {
    return this.#count.get() ?? 0;
  }

  /** How many enabled users hold `admin`. */
  countEnabledAdmins(): number {
    return this.#countEnabledAdmins.get() ?? 0;
  }

  findById(id: string): UserRecord | null {
    const row = this.#byId.get(id);
    return row === undefined ? null : toRecord(row);
  }

  /** Finds a user by name, ignoring case. */
  findByUsername(username: string): UserRecord | null {
    const row = this.#byUsername.get(username);
    return row === undefined ? null : toRecord(row);
  }

  /** Every user, oldest first. */
  list(): UserRecord[] {
    return this.#all.all().map(toRecord);
  }

  /** Inserts a user; throws SQLite's unique-constraint error when the name is taken. */
  create(user: NewUser): void {
    this.#db
      .prepare(
        `INSERT INTO users (id, username, password_hash, source, enabled, must_change_password, token_version, created_at, updated_at)
         VALUES (?, ?, ?, ?, 1, ?, 0, ?, ?)`,
      )
      // `oidc` is not a stored source: the link in `oidc_identities` makes it (migration 020).
      .run(user.id, user.username, user.passwordHash, user.source === 'oidc' ? 'local' : user.source, user.mustChangePassword ? 1 : 0, user.now, user.now);
    this.#insertPermissions(user.id, user.permissions);
    this.#tracker.markChanged();
  }

  /** Replaces a user's permissions. */
  setPermissions(id: string, permissions: readonly Permission[], now: number): void {
    this.#db.prepare('DELETE FROM user_permissions WHERE user_id = ?').run(id);
    this.#insertPermissions(id, permissions);
    this.#touch(id, now);
  }

  /** Enables or disables a user; disabling ends their outstanding access tokens. */
  setEnabled(id: string, enabled: boolean, now: number): void {
    this.#db
      .prepare('UPDATE users SET enabled = ?, token_version = token_version + ?, updated_at = ? WHERE id = ?')
      .run(enabled ? 1 : 0, enabled ? 0 : 1, now, id);
    this.#tracker.markChanged();
  }

  /** Sets a new password hash and ends every outstanding access token of the user. */
  setPassword(id: string, passwordHash: string, mustChangePassword: boolean, now: number): void {
    this.#db
      .prepare(
        'UPDATE users SET password_hash = ?, must_change_password = ?, token_version = token_version + 1, updated_at = ? WHERE id = ?',
      )
      .run(passwordHash, mustChangePassword ? 1 : 0, now, id);
    this.#tracker.markChanged();
  }

  /** Deletes a user; their permissions, keys and sessions go with them. */
  delete(id: string): void {
    this.#db.prepare('DELETE FROM users WHERE id = ?').run(id);
    this.#tracker.markChanged();
  }

  #insertPermissions(id: string, permissions: readonly Permission[]): void {
    const insert = this.#db.prepare('INSERT OR IGNORE INTO user_permissions (user_id, permission) VALUES (?, ?)');
    for (const permission of permissions) insert.run(id, permission);
  }

  #touch(id: string, now: number): void {
    this.#db.prepare('UPDATE users SET updated_at = ? WHERE id = ?').run(now, id);
    this.#tracker.markChanged();
  }
}

function toRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    username: row.username,
    passwordHash: row.password_hash,
    source: row.source,
    enabled: row.enabled === 1,
    mustChangePassword: row.must_change_password === 1,
    tokenVersion: row.token_version,
    permissions:
      row.permissions === null
        ? []
        : (row.permissions.split(' ') as Permission[]).sort((a, b) => (permissionOrder.get(a) ?? 0) - (permissionOrder.get(b) ?? 0)),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
