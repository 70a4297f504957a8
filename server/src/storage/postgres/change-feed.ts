/**
 * The PostgreSQL {@link ChangeFeed}: epochs from the `cache_epochs` table through the
 * {@link EpochGate} (the check that decides), early notices from the {@link ChangeListener}. When
 * the epochs cannot be read, `current()` rejects with `StorageUnavailableError`: callers fail closed.
 */
import type { CacheDomain, ChangeFeed, ChangeListenerStatus, Epochs } from '../port/index.js';
import type { ChangeListener } from './change-listener.js';
import { EpochGate } from './epoch-gate.js';
import type { Executor } from './executor.js';

/** {@link ChangeFeed} on PostgreSQL. */
export class PostgresChangeFeed implements ChangeFeed {
  readonly #gate: EpochGate;
  readonly #listeners = new Set<(domain: CacheDomain) => void>();
  #listener: ChangeListener | null = null;

  constructor(sql: Executor) {
    this.#gate = new EpochGate(async () => {
      const rows = await sql.rows<{ domain: CacheDomain; epoch: number }>('SELECT domain, epoch FROM cache_epochs', [], { name: 'svc-cache-epochs' });
      const epochs = { access: 0, bans: 0, models: 0 };
      for (const row of rows) epochs[row.domain] = row.epoch;
      return epochs;
    });
  }

  /** Attaches the LISTEN connection whose state {@link listening} reports. */
  attach(listener: ChangeListener): void {
    this.#listener = listener;
  }

  current(): Promise<Epochs> {
    return this.#gate.current();
  }

  onChange(listener: (domain: CacheDomain) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every subscriber that `domain` changed (the listener calls it). */
  notify(domain: CacheDomain): void {
    for (const listener of this.#listeners) listener(domain);
  }

  get listening(): boolean {
    return this.#listener?.listening ?? false;
  }

  listenerStatus(): ChangeListenerStatus | null {
    return this.#listener?.status() ?? null;
  }
}
