/**
 * Per-call options, the last argument of every resource method (as in openai-node).
 */

/**
 * Changes to the client's defaults for one call.
 *
 * @example
 * const controller = new AbortController();
 * await client.keys.list({ signal: controller.signal, timeout: 5_000, maxRetries: 0, headers: { 'X-Trace': 'abc' } });
 */
export interface RequestOptions {
  /** Aborts the call (every attempt and every wait between them) with an `APIUserAbortError`. */
  signal?: AbortSignal;
  /**
   * Milliseconds one attempt of this call may take.
   * @default the client's `timeout`
   */
  timeout?: number;
  /**
   * Retries of this call, where retrying is safe.
   * @default the client's `maxRetries`
   */
  maxRetries?: number;
  /** Headers added to this call (over the client's `headers`). */
  headers?: Record<string, string>;
}
