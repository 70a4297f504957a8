/**
 * Best-effort writes that no request waits for (a key's `last_used_at`). They are tracked so that
 * shutdown can wait for them before the storage closes, and a test for what they wrote.
 */
export class BackgroundWrites {
  readonly #pending = new Set<Promise<void>>();

  /** Tracks `write` until it settles. A failure is swallowed: a best-effort write never fails anything. */
  track(write: Promise<unknown>): void {
    const settled: Promise<void> = write.then(
      () => undefined,
      () => undefined,
    );
    this.#pending.add(settled);
    void settled.then(() => this.#pending.delete(settled));
  }

  /** Resolves once every write tracked so far, and any tracked while waiting, has settled. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
  }
}
