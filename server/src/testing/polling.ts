/**
 * Waiting in tests: a plain sleep, and bounded polling instead of timing assertions.
 */

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Calls `probe` every `intervalMs` until `done(result)` holds or `timeoutMs` passes, and returns
 * every result seen (the last one satisfies `done` unless the time ran out).
 */
export async function pollUntil<T>(
  probe: () => Promise<T>,
  done: (result: T) => boolean,
  options: { timeoutMs: number; intervalMs: number },
): Promise<T[]> {
  const results: T[] = [];
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const result = await probe();
    results.push(result);
    if (done(result) || Date.now() > deadline) return results;
    await sleep(options.intervalMs);
  }
}
