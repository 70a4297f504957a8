/** Refresh-token families on PostgreSQL. Sessions are never cached, so no write here bumps an epoch. */
import type { RefreshTokenRecord, RowLock, SessionStore } from '../port/index.js';
import { refreshTokenOf, type RefreshTokenRow } from '../rows.js';
import type { Executor } from './executor.js';

/** {@link SessionStore} on PostgreSQL. */
export class PostgresSessionStore implements SessionStore {
  readonly #sql: Executor;

  constructor(sql: Executor) {
    this.#sql = sql;
  }

  async createFamily(id: string, userId: string, now: number, absoluteExpiresAt: number): Promise<void> {
    await this.#sql.run('INSERT INTO refresh_families (id, user_id, created_at, absolute_expires_at) VALUES ($1, $2, $3, $4)', [id, userId, now, absoluteExpiresAt]);
  }

  async addToken(digest: Buffer, familyId: string, issuedAt: number, expiresAt: number): Promise<void> {
    await this.#sql.run('INSERT INTO refresh_tokens (token_hash, family_id, issued_at, expires_at) VALUES ($1, $2, $3, $4)', [digest, familyId, issuedAt, expiresAt]);
  }

  /**
   * With `{ lock: 'update' }` in a transaction, the token's family row is locked first (every
   * rotation, reuse detection and logout of one session queues on it), then the token is read
   * afresh, so the reader sees what the previous holder of the lock committed.
   */
  async findToken(digest: Buffer, options?: RowLock): Promise<RefreshTokenRecord | null> {
    const lock = this.#sql.lockClause(options, 'f');
    if (lock !== '') {
      const family = await this.#sql.first('SELECT f.id FROM refresh_families f JOIN refresh_tokens t ON t.family_id = f.id WHERE t.token_hash = $1' + lock, [digest]);
      if (family === null) return null;
    }
    const row = await this.#sql.first<RefreshTokenRow>(
      `SELECT t.family_id, f.user_id, t.expires_at, t.rotated_at, f.absolute_expires_at
       FROM refresh_tokens t JOIN refresh_families f ON f.id = t.family_id WHERE t.token_hash = $1`,
      [digest],
    );
    if (row === null) return null;
    return refreshTokenOf(row);
  }

  /** One conditional statement: only the first of two racing rotations changes the row. */
  async markRotated(digest: Buffer, now: number): Promise<boolean> {
    return (await this.#sql.run('UPDATE refresh_tokens SET rotated_at = $1 WHERE token_hash = $2 AND rotated_at IS NULL', [now, digest])) === 1;
  }

  async countGraceExchange(digest: Buffer, limit: number): Promise<boolean> {
    return (await this.#sql.run('UPDATE refresh_tokens SET grace_exchanges = grace_exchanges + 1 WHERE token_hash = $1 AND grace_exchanges < $2', [digest, limit])) === 1;
  }

  async deleteFamily(familyId: string): Promise<void> {
    await this.#sql.run('DELETE FROM refresh_families WHERE id = $1', [familyId], { lookup: true });
  }

  async deleteFamiliesOfUser(userId: string): Promise<void> {
    await this.#sql.run('DELETE FROM refresh_families WHERE user_id = $1', [userId], { lookup: true });
  }

  async pruneExpired(now: number): Promise<void> {
    await this.#sql.run('DELETE FROM refresh_families WHERE absolute_expires_at <= $1', [now]);
    await this.#sql.run('DELETE FROM refresh_tokens WHERE expires_at <= $1', [now]);
  }
}
