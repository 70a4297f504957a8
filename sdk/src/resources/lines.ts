/**
 * Reads a streamed UTF-8 body line by line, as it arrives: the one decoding loop under both streamed
 * formats the SDK reads (server-sent events and the audit export's JSON Lines).
 */

/**
 * The lines of `body` (ended by `\n` or `\r\n`, without it), the last one included when it has text
 * but no newline. When `signal` fires the body is cancelled and the iteration ends (a pending read
 * ends too, whatever the `fetch` underneath does with the abort). Leaving the loop early releases
 * and cancels the body.
 */
export async function* readLines(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', cancel, { once: true });
  if (signal?.aborted === true) cancel();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const lines = (buffered + (done ? decoder.decode() : decoder.decode(value, { stream: true }))).split(/\r?\n/);
      buffered = lines.pop() as string;
      yield* lines;
      if (done) {
        if (buffered !== '') yield buffered;
        return;
      }
    }
  } finally {
    signal?.removeEventListener('abort', cancel);
    reader.releaseLock();
    // Not awaited: under msw's fetch interceptor (mswjs/interceptors#799) cancelling a mocked body never settles.
    void body.cancel().catch(() => undefined);
  }
}
