/**
 * Login sessions ("families") and their refresh tokens on SQLite, stored as SHA-256 digests. The only
 * module that writes SQL for `refresh_families` and `refresh_tokens`.
 */
import type { RefreshTokenRecord, SessionStore } from '../port/sessions.js';
import { refreshTokenOf, type RefreshTokenRow } from '../rows.js';
import { attempt } from './errors.js';
import { statement, type Connections } from './statements.js';

const FIND_TOKEN = `SELECT t.family_id, f.user_id, t.expires_at, t.rotated_at, f.absolute_expires_at
  FROM refresh_tokens t JOIN refresh_families f ON f.id = t.family_id WHERE t.token_hash = ?`;

/** Reads and writes refresh sessions. */
export class SqliteSessionStore implements SessionStore {
  readonly #c: Connections;

  constructor(connections: Connections) {
    this.#c = connections;
  }

  createFamily(id: string, userId: string, now: number, absoluteExpiresAt: number): Promise<void> {
    return this.#c.gate.write(() => {
      statement(this.#c.write, 'INSERT INTO refresh_families (id, user_id, created_at, absolute_expires_at) VALUES (?, ?, ?, ?)').run(id, userId, now, absoluteExpiresAt);
    });
  }

  addToken(digest: Buffer, familyId: string, issuedAt: number, expiresAt: number): Promise<void> {
    return this.#c.gate.write(() => {
      statement(this.#c.write, 'INSERT INTO refresh_tokens (token_hash, family_id, issued_at, expires_at) VALUES (?, ?, ?, ?)').run(digest, familyId, issuedAt, expiresAt);
    });
  }

  /** Row locks need nothing on SQLite: a transaction holds the whole database. */
  findToken(digest: Buffer): Promise<RefreshTokenRecord | null> {
    return attempt(() => {
      const row = statement<[Buffer], RefreshTokenRow>(this.#c.read, FIND_TOKEN).get(digest);
      if (row === undefined) return null;
      return refreshTokenOf(row);
    });
  }

  markRotated(digest: Buffer, now: number): Promise<boolean> {
    return this.#c.gate.write(
      () => statement(this.#c.write, 'UPDATE refresh_tokens SET rotated_at = ? WHERE token_hash = ? AND rotated_at IS NULL').run(now, digest).changes === 1,
    );
  }

  countGraceExchange(digest: Buffer, limit: number): Promise<boolean> {
    return this.#c.gate.write(
      () => statement(this.#c.write, 'UPDATE refresh_tokens SET grace_exchanges = grace_exchanges + 1 WHERE token_hash = ? AND grace_exchanges < ?').run(digest, limit).changes === 1,
    );
  }

  deleteFamily(familyId: string): Promise<void> {
    return this.#c.gate.write(() => {
      statement(this.#c.write, 'DELETE FROM refresh_families WHERE id = ?').run(familyId);
    });
  }

  deleteFamiliesOfUser(userId: string): Promise<void> {
    return this.#c.gate.write(() => {
      statement(this.#c.write, 'DELETE FROM refresh_families WHERE user_id = ?').run(userId);
    });
  }

  pruneExpired(now: number): Promise<void> {
    const db = this.#c.write;
    return this.#c.gate.write(() => {
      db.transaction(() => {
        statement(db, 'DELETE FROM refresh_families WHERE absolute_expires_at <= ?').run(now);
        statement(db, 'DELETE FROM refresh_tokens WHERE expires_at <= ?').run(now);
      })();
    });
  }
}
