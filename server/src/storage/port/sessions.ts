/** The refresh-session aggregate of the storage port: families of rotating refresh tokens. */
import type { RowLock } from './index.js';

/** A refresh token as stored (by digest), with its family's limits. */
export interface RefreshTokenRecord {
  familyId: string;
  userId: string;
  expiresAt: number;
  rotatedAt: number | null;
  familyExpiresAt: number;
}

/** Refresh-token families. */
export interface SessionStore {
  createFamily(id: string, userId: string, now: number, absoluteExpiresAt: number): Promise<void>;
  addToken(digest: Buffer, familyId: string, issuedAt: number, expiresAt: number): Promise<void>;
  /** With `{ lock: 'update' }` inside a transaction: locks the token's family first, then reads. */
  findToken(digest: Buffer, options?: RowLock): Promise<RefreshTokenRecord | null>;
  /** Marks the token rotated if it was not yet; false when another rotation won. */
  markRotated(digest: Buffer, now: number): Promise<boolean>;
  /**
   * Counts one more exchange of an already rotated token inside the grace window; answers false
   * (and counts nothing) when it was exchanged `limit` times already.
   */
  countGraceExchange(digest: Buffer, limit: number): Promise<boolean>;
  deleteFamily(familyId: string): Promise<void>;
  deleteFamiliesOfUser(userId: string): Promise<void>;
  pruneExpired(now: number): Promise<void>;
}
