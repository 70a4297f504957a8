/** Change notification of the storage port: how caches learn that another process or host wrote. */

/** What a cache holds: `access` (users, permissions, keys), `bans`, `models`. */
export type CacheDomain = 'access' | 'bans' | 'models';

/** The current epoch of each domain; a cache is current while its epoch is unchanged. */
export interface Epochs {
  readonly access: number;
  readonly bans: number;
  readonly models: number;
}

/** Epochs and early notices of changes. */
export interface ChangeFeed {
  /**
   * Epochs reflecting every commit that completed before this call began. Compare with `!==` (a
   * restored database may go backwards). SQLite answers synchronously (`data_version`, then the epochs); PostgreSQL
   * with a coalesced read started after the call. Rejects with `StorageUnavailableError` when it
   * cannot tell: callers fail closed.
   */
  current(): Epochs | Promise<Epochs>;
  /** Early notice of a change (PostgreSQL NOTIFY; SQLite: this process's writes). Returns an unsubscribe function. */
  onChange(listener: (domain: CacheDomain) => void): () => void;
  /** For health and metrics: the PostgreSQL listener is connected; always true on SQLite. */
  readonly listening: boolean;
  /** The LISTEN connection's state, for `/status` and `/metrics`; null where there is none (SQLite, or PostgreSQL with listening off). */
  listenerStatus(): ChangeListenerStatus | null;
}

/** The state of the PostgreSQL LISTEN connection (per process). */
export interface ChangeListenerStatus {
  /** Connected and listening now. */
  readonly listening: boolean;
  /** How many times it connected again after losing its connection, since the process started. */
  readonly reconnects: number;
  /** When the last notification arrived (epoch ms, from the injected clock); null before the first. */
  readonly lastNotificationAt: number | null;
}
