/**
 * Users and their permissions on SQLite. The only module that writes SQL for the `users` and
 * `user_permissions` tables. Permissions come back in the order they were stored; services order them.
 */
import type { NewUser, UserRecord, UserSource, UserStore } from '../port/users.js';
import { storedSource } from '../port/users.js';
import { attempt, sqliteCode } from './errors.js';
import { statement, type Connections } from './statements.js';

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
  limits: string | null;
}

const SELECT_USER = `
  SELECT u.id, u.username, u.password_hash, u.enabled, u.must_change_password, u.token_version, u.created_at, u.updated_at, u.limits,
    CASE WHEN EXISTS (SELECT 1 FROM oidc_identities i WHERE i.user_id = u.id) THEN 'oidc' ELSE u.source END AS source,
    (SELECT group_concat(permission, ' ') FROM user_permissions p WHERE p.user_id = u.id) AS permissions
  FROM users u`;
const BY_ID = `${SELECT_USER} WHERE u.id = ?`;
const BY_USERNAME = `${SELECT_USER} WHERE u.username = ?`;
const ALL = `${SELECT_USER} ORDER BY u.created_at, u.username`;
const COUNT_ENABLED_HOLDING = `SELECT count(*) FROM users u JOIN user_permissions p ON p.user_id = u.id WHERE u.enabled = 1 AND p.permission = ?`;
const INSERT_PERMISSION = 'INSERT OR IGNORE INTO user_permissions (user_id, permission) VALUES (?, ?)';

/** Reads and writes users. */
export class SqliteUserStore implements UserStore {
  readonly #c: Connections;

  constructor(connections: Connections) {
    this.#c = connections;
  }

  exists(): Promise<boolean> {
    return attempt(() => statement(this.#c.read, 'SELECT EXISTS (SELECT 1 FROM users)').pluck().get() === 1);
  }

  countEnabledHolding(permission: string): Promise<number> {
    return attempt(() => (statement<[string], number>(this.#c.read, COUNT_ENABLED_HOLDING).pluck().get(permission) as number | undefined) ?? 0);
  }

  findById(id: string): Promise<UserRecord | null> {
    return attempt(() => {
      const row = statement<[string], UserRow>(this.#c.read, BY_ID).get(id);
      return row === undefined ? null : toRecord(row);
    });
  }

  findByUsername(username: string): Promise<UserRecord | null> {
    return attempt(() => {
      const row = statement<[string], UserRow>(this.#c.read, BY_USERNAME).get(username);
      return row === undefined ? null : toRecord(row);
    });
  }

  list(): Promise<UserRecord[]> {
    return attempt(() => statement<[], UserRow>(this.#c.read, ALL).all().map(toRecord));
  }

  create(user: NewUser): Promise<'created' | 'username_taken'> {
    const db = this.#c.write;
    return this.#c.gate.write(() => {
      try {
        db.transaction(() => {
          statement(
            db,
            `INSERT INTO users (id, username, password_hash, source, enabled, must_change_password, token_version, created_at, updated_at)
             VALUES (?, ?, ?, ?, 1, ?, 0, ?, ?)`,
                    // `oidc` is not a stored source: the link in `oidc_identities` makes it (migration 020).
          ).run(user.id, user.username, user.passwordHash, storedSource(user.source), user.mustChangePassword ? 1 : 0, user.now, user.now);
          for (const permission of user.permissions) statement(db, INSERT_PERMISSION).run(user.id, permission);
        })();
      } catch (error) {
        if (sqliteCode(error) === 'SQLITE_CONSTRAINT_UNIQUE') return 'username_taken';
        throw error;
      }
      return 'created';
    });
  }

  setPermissions(id: string, permissions: readonly string[], now: number): Promise<void> {
    const db = this.#c.write;
    return this.#c.gate.write(() => {
      db.transaction(() => {
        statement(db, 'DELETE FROM user_permissions WHERE user_id = ?').run(id);
        for (const permission of permissions) statement(db, INSERT_PERMISSION).run(id, permission);
        statement(db, 'UPDATE users SET updated_at = ? WHERE id = ?').run(now, id);
      })();
    });
  }

  setLimits(id: string, limitsJson: string | null, now: number): Promise<void> {
    return this.#c.gate.write(() => {
      statement(this.#c.write, 'UPDATE users SET limits = ?, updated_at = ? WHERE id = ?').run(limitsJson, now, id);
    });
  }

  setEnabled(id: string, enabled: boolean, now: number): Promise<void> {
    return this.#c.gate.write(() => {
      statement(this.#c.write, 'UPDATE users SET enabled = ?, token_version = token_version + ?, updated_at = ? WHERE id = ?').run(
        enabled ? 1 : 0,
        enabled ? 0 : 1,
        now,
        id,
      );
    });
  }

  setPassword(id: string, passwordHash: string, mustChangePassword: boolean, now: number): Promise<void> {
    return this.#c.gate.write(() => {
      statement(
        this.#c.write,
        'UPDATE users SET password_hash = ?, must_change_password = ?, token_version = token_version + 1, updated_at = ? WHERE id = ?',
      ).run(passwordHash, mustChangePassword ? 1 : 0, now, id);
    });
  }

  delete(id: string): Promise<boolean> {
    return this.#c.gate.write(() => statement(this.#c.write, 'DELETE FROM users WHERE id = ?').run(id).changes > 0);
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
    permissions: row.permissions === null ? [] : row.permissions.split(' '),
    limitsJson: row.limits,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

