/**
 * Reads a server-sent-event body: yields each `data:` payload parsed as JSON, stops at `[DONE]`,
 * and throws an {@link APIError} for an error event (`{"error": {...}}`) sent mid-stream: the answer
 * began as a success, so the error is the server's failure on the way (502, an `InternalServerError`).
 */
import { APIError } from '../errors.js';

/**
 * The JSON payloads of a server-sent-event stream. When `signal` fires, the body is cancelled and the
 * iteration ends (a pending read ends too, whatever the `fetch` underneath does with the abort).
 */
export async function* readEvents<T>(body: ReadableStream<Uint8Array>, headers: Headers, signal?: AbortSignal): AsyncGenerator<T> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', cancel, { once: true });
  if (signal?.aborted === true) cancel();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let boundary = buffer.search(/\r?\n\r?\n/);
      while (boundary !== -1) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary).replace(/^\r?\n\r?\n/, '');
        const data = block
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        // Events already received are not handed out after an abort.
        if (data === '[DONE]' || signal?.aborted === true) return;
        if (data !== '') {
          const parsed = JSON.parse(data) as { error?: unknown };
          if (parsed.error !== undefined && typeof parsed.error === 'object') throw APIError.from(502, parsed, headers);
          yield parsed as T;
        }
        boundary = buffer.search(/\r?\n\r?\n/);
      }
      if (done) return;
    }
  } finally {
    signal?.removeEventListener('abort', cancel);
    reader.releaseLock();
    // Not awaited: under msw's fetch interceptor (mswjs/interceptors#799) cancelling a mocked body never settles.
    void body.cancel().catch(() => undefined);
  }
}
