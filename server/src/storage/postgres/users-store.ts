/**
 * Users and their permissions on PostgreSQL. Usernames are unique ignoring case through the unique
 * index on `lower(username)` (PostgreSQL's `lower()` folds Unicode; SQLite's NOCASE folds ASCII only).
 */
import type { NewUser, RowLock, UserRecord, UserSource, UserStore } from '../port/index.js';
import type { Executor } from './executor.js';
import { storedSource } from '../port/users.js';

interface UserRow {
  id: string;
  username: string;
  password_hash: string;
  source: UserSource;
  enabled: boolean;
  must_change_password: boolean;
  token_version: number;
  created_at: number;
  updated_at: number;
  permissions: string[] | null;
  limits: string | null;
}

const SELECT_USER = `
  SELECT u.id, u.username, u.password_hash,
         CASE WHEN EXISTS (SELECT 1 FROM oidc_identities i WHERE i.user_id = u.id) THEN 'oidc' ELSE u.source END AS source, u.enabled, u.must_change_password, u.token_version, u.created_at, u.updated_at, u.limits,
         (SELECT array_agg(p.permission ORDER BY p.permission COLLATE "C") FROM user_permissions p WHERE p.user_id = u.id) AS permissions
  FROM users u`;

const toRecord = (row: UserRow): UserRecord => ({
  id: row.id,
  username: row.username,
  passwordHash: row.password_hash,
  source: row.source,
  enabled: row.enabled,
  mustChangePassword: row.must_change_password,
  tokenVersion: row.token_version,
  permissions: row.permissions ?? [],
  limitsJson: row.limits,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** {@link UserStore} on PostgreSQL. */
export class PostgresUserStore implements UserStore {
  readonly #sql: Executor;

  constructor(sql: Executor) {
    this.#sql = sql;
  }

  async exists(): Promise<boolean> {
    return (await this.#sql.first<{ exists: boolean }>('SELECT EXISTS (SELECT 1 FROM users) AS exists'))?.exists === true;
  }

  async countEnabledHolding(permission: string): Promise<number> {
    const row = await this.#sql.first<{ count: number }>(
      'SELECT count(*) AS count FROM users u JOIN user_permissions p ON p.user_id = u.id WHERE u.enabled AND p.permission = $1',
      [permission],
      { lookup: true },
    );
    return row?.count ?? 0;
  }

  async findById(id: string, options?: RowLock): Promise<UserRecord | null> {
    const lock = this.#sql.lockClause(options, 'u');
    const row = await this.#sql.first<UserRow>(`${SELECT_USER} WHERE u.id = $1${lock}`, [id], lock === '' ? { name: 'svc-user-by-id', lookup: true } : { lookup: true });
    return row === null ? null : toRecord(row);
  }

  async findByUsername(username: string): Promise<UserRecord | null> {
    const row = await this.#sql.first<UserRow>(`${SELECT_USER} WHERE lower(u.username) = lower($1)`, [username], { lookup: true });
    return row === null ? null : toRecord(row);
  }

  async list(): Promise<UserRecord[]> {
    return (await this.#sql.rows<UserRow>(`${SELECT_USER} ORDER BY u.created_at, lower(u.username) COLLATE "C", u.id`)).map(toRecord);
  }

  /** One statement: the account and its permissions appear together or not at all. */
  async create(user: NewUser): Promise<'created' | 'username_taken'> {
    const row = await this.#sql.first<{ created: number }>(
      `WITH inserted AS (
         INSERT INTO users (id, username, password_hash, source, enabled, must_change_password, token_version, created_at, updated_at)
         VALUES ($1, $2, $3, $4, true, $5, 0, $6, $6)
         ON CONFLICT ((lower(username))) DO NOTHING
         RETURNING id),
       granted AS (
         INSERT INTO user_permissions (user_id, permission)
         SELECT inserted.id, permission FROM inserted, unnest($7::text[]) AS permission
         ON CONFLICT DO NOTHING)
       SELECT count(*) AS created FROM inserted`,
      [user.id, user.username, user.passwordHash, storedSource(user.source), user.mustChangePassword, user.now, [...user.permissions]],
    );
    return row?.created === 1 ? 'created' : 'username_taken';
  }

  /** One statement: drops the permissions not in the new set, adds the missing ones, touches the account. */
  async setPermissions(id: string, permissions: readonly string[], now: number): Promise<void> {
    await this.#sql.run(
      `WITH wanted AS (SELECT DISTINCT unnest($2::text[]) AS permission),
       target AS (SELECT id FROM users WHERE id = $1),
       dropped AS (DELETE FROM user_permissions WHERE user_id = $1 AND permission <> ALL ($2::text[])),
       added AS (
         INSERT INTO user_permissions (user_id, permission) SELECT target.id, wanted.permission FROM target, wanted
         ON CONFLICT DO NOTHING)
       UPDATE users SET updated_at = $3 WHERE id = $1`,
      [id, [...permissions], now],
      { lookup: true },
    );
  }

  async setLimits(id: string, limitsJson: string | null, now: number): Promise<void> {
    await this.#sql.run('UPDATE users SET limits = $1, updated_at = $2 WHERE id = $3', [limitsJson, now, id], { lookup: true });
  }

  async setEnabled(id: string, enabled: boolean, now: number): Promise<void> {
    await this.#sql.run(
      'UPDATE users SET enabled = $1, token_version = token_version + (CASE WHEN $1 THEN 0 ELSE 1 END), updated_at = $2 WHERE id = $3',
      [enabled, now, id],
      { lookup: true },
    );
  }

  async setPassword(id: string, passwordHash: string, mustChangePassword: boolean, now: number): Promise<void> {
    await this.#sql.run(
      'UPDATE users SET password_hash = $1, must_change_password = $2, token_version = token_version + 1, updated_at = $3 WHERE id = $4',
      [passwordHash, mustChangePassword, now, id],
      { lookup: true },
    );
  }

  async delete(id: string): Promise<boolean> {
    return (await this.#sql.run('DELETE FROM users WHERE id = $1', [id], { lookup: true })) > 0;
  }
}
