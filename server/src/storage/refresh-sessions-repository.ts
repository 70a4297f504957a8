/**
 * Login sessions ("families") and their refresh tokens, stored as SHA-256 digests. The only module
 * that writes SQL for `refresh_families` and `refresh_tokens`.
 */
import type { Database } from './database.js';

/** A stored refresh token with its session. */
export interface RefreshTokenRecord {
  familyId: string;
  userId: string;
  expiresAt: number;
  rotatedAt: number | null;
  familyExpiresAt: number;
}

/** Reads and writes refresh sessions. Sessions are not cached, so no write marks the tracker. */
export class RefreshSessionsRepository {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Starts a session for `userId` that ends at `absoluteExpiresAt` whatever happens. */
  createFamily(id: string, userId: string, now: number, absoluteExpiresAt: number): void {
    this.#db
      .prepare('INSERT INTO refresh_families (id, user_id, created_at, absolute_expires_at) VALUES (?, ?, ?, ?)')
      .run(id, userId, now, absoluteExpiresAt);
  }

  addToken(digest: Buffer, familyId: string, issuedAt: number, expiresAt: number): void {
    this.#db
      .prepare('INSERT INTO refresh_tokens (token_hash, family_id, issued_at, expires_at) VALUES (?, ?, ?, ?)')
      .run(digest, familyId, issuedAt, expiresAt);
  }

  findToken(digest: Buffer): RefreshTokenRecord | null {
    const row = this.#db
      .prepare<[Buffer], { family_id: string; user_id: string; expires_at: number; rotated_at: number | null; absolute_expires_at: number }>(
        `SELECT t.family_id, f.user_id, t.expires_at, t.rotated_at, f.absolute_expires_at
         FROM refresh_tokens t JOIN refresh_families f ON f.id = t.family_id WHERE t.token_hash = ?`,
      )
      .get(digest);
    if (row === undefined) return null;
    return {
      familyId: row.family_id,
      userId: row.user_id,
      expiresAt: row.expires_at,
      rotatedAt: row.rotated_at,
      familyExpiresAt: row.absolute_expires_at,
    };
  }

  /** Marks a token used; false when another request used it first. */
  markRotated(digest: Buffer, now: number): boolean {
    return this.#db.prepare('UPDATE refresh_tokens SET rotated_at = ? WHERE token_hash = ? AND rotated_at IS NULL').run(now, digest).changes === 1;
  }

  /** Ends one session: every token of the family stops working. */
  /**
   * Counts one more exchange of an already rotated token inside the grace window; answers false
   * (and counts nothing) when it was exchanged `limit` times already.
   */
  countGraceExchange(digest: Buffer, limit: number): boolean {
    return (
      this.#db.prepare('UPDATE refresh_tokens SET grace_exchanges = grace_exchanges + 1 WHERE token_hash = ? AND grace_exchanges < ?').run(digest, limit).changes === 1
    );
  }

  deleteFamily(familyId: string): void {
    this.#db.prepare('DELETE FROM refresh_families WHERE id = ?').run(familyId);
  }

  /** Ends every session of a user. */
  deleteFamiliesOfUser(userId: string): void {
    this.#db.prepare('DELETE FROM refresh_families WHERE user_id = ?').run(userId);
  }

  /** Removes sessions and tokens past their lifetime. */
  pruneExpired(now: number): void {
    this.#db.prepare('DELETE FROM refresh_families WHERE absolute_expires_at <= ?').run(now);
    this.#db.prepare('DELETE FROM refresh_tokens WHERE expires_at <= ?').run(now);
  }
}
