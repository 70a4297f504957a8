/**
 * One lease at a time per counter in this process: callers that find their block empty while a lease
 * of the same counter is in flight wait for it and look at the block again, instead of each leasing
 * a block of its own (under concurrent calls that would reserve, and let lapse, many blocks at once).
 */

/** The leases in flight of one process, by counter. */
export class SingleFlight {
  readonly #inFlight = new Map<string, Promise<void>>();

  /** Settles when the lease of `key` in flight ends (never rejects); undefined when none is. */
  pending(key: string): Promise<void> | undefined {
    return this.#inFlight.get(key);
  }

  /** Runs `work` as the lease of `key` in flight until it settles. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.runAll([key], work);
  }

  /** Runs `work` as the lease in flight of every one of `keys` (one store call leasing them all). */
  async runAll<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    const running = work();
    const settled = running.then(
      () => undefined,
      () => undefined,
    );
    for (const key of keys) this.#inFlight.set(key, settled);
    try {
      return await running;
    } finally {
      for (const key of keys) if (this.#inFlight.get(key) === settled) this.#inFlight.delete(key);
    }
  }
}
