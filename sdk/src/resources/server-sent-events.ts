/**
 * Reads a server-sent-event body: yields each `data:` payload parsed as JSON, stops at `[DONE]`,
 * and throws an {@link APIError} for an error event (`{"error": {...}}`) sent mid-stream: the answer
 * began as a success, so the error is the server's failure on the way (502, an `InternalServerError`).
 */
import { APIError } from '../errors.js';
import { readLines } from './lines.js';

/**
 * The JSON payloads of a server-sent-event stream (an event ends at a blank line; one cut short by
 * the end of the body is dropped). When `signal` fires, the body is cancelled and the iteration ends
 * (a pending read ends too, whatever the `fetch` underneath does with the abort).
 */
export async function* readEvents<T>(body: ReadableStream<Uint8Array>, headers: Headers, signal?: AbortSignal): AsyncGenerator<T> {
  let data: string[] = [];
  for await (const line of readLines(body, signal)) {
    if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    if (line !== '') continue;
    const payload = data.join('\n');
    data = [];
    // Events already received are not handed out after an abort.
    if (payload === '[DONE]' || signal?.aborted === true) return;
    if (payload !== '') {
      const parsed = JSON.parse(payload) as { error?: unknown };
      if (parsed.error !== undefined && typeof parsed.error === 'object') throw APIError.from(502, parsed, headers);
      yield parsed as T;
    }
  }
}
