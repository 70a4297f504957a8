/** The brute-force aggregate of the storage port: failure counters, bans and lockouts. */

/** What a counter counts: an address, an (address, key) pair, or an account. */
export type BruteForceScope = 'ip' | 'key' | 'account';

/** One counter. */
export interface BruteForceEntry {
  scope: BruteForceScope;
  subject: string;
  ip: string | null;
  keyId: string | null;
  userId: string | null;
  failures: number;
  windowStartedAt: number;
  lastFailureAt: number;
  lockouts: number;
  bannedUntil: number | null;
  /** Login attempts reserved and not yet settled (issue 14, H2). */
  inFlight: number;
  /** When the newest of them was reserved; a count older than a minute was left by a crashed process. */
  inFlightSince: number | null;
}

/** A ban or lockout in force. */
export interface ActiveBan {
  scope: BruteForceScope;
  ip: string | null;
  keyId: string | null;
  userId: string | null;
  username: string | null;
  failures: number;
  lockouts: number;
  bannedUntil: number;
}

/** Failure counters shared by every process and host. */
export interface BruteForceStore {
  find(scope: BruteForceScope, subject: string): Promise<BruteForceEntry | null>;
  /**
   * Inside a transaction only: the counter row, created from `initial` if missing, locked until
   * commit (PostgreSQL: `INSERT … ON CONFLICT DO NOTHING` then `SELECT … FOR UPDATE`).
   */
  lockCounter(initial: BruteForceEntry): Promise<BruteForceEntry>;
  save(entry: BruteForceEntry): Promise<void>;
  /** True when the subject was banned at `now`. */
  delete(scope: BruteForceScope, subject: string, now: number): Promise<boolean>;
  deleteActiveBans(scope: BruteForceScope, now: number): Promise<ActiveBan[]>;
  /** Deletes the (IP, credential) counters and bans of one client IP; answers the active bans deleted. */
  deleteKeyEntriesOfIp(ip: string, now: number): Promise<ActiveBan[]>;
  activeBans(scope: BruteForceScope | null, now: number): Promise<ActiveBan[]>;
  pruneStale(before: number, now: number): Promise<void>;
}
