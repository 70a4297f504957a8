/**
 * Follows a model's server-sent-event stream on its way to the caller, event by event: hands each
 * `data:` JSON to the caller's `onChunk` (the usage meter reads the `usage` chunk there), drops the
 * usage chunk when svc asked for it on the caller's behalf (`stream_options.include_usage` the caller
 * did not send), and reports once whether the stream ran to its end or was cut off.
 */
import { pipeline, Transform, type Readable } from 'node:stream';

/** Options of {@link followEventStream}. */
export interface EventStreamFollower {
  /**
   * True when svc added `stream_options.include_usage` itself: the usage-only chunk (empty `choices`)
   * is kept from the caller, and the `usage: null` svc's request added to other chunks is removed.
   */
  hideUsage: boolean;
  /** Each event's parsed `data:` JSON (not `[DONE]`). */
  onChunk(chunk: unknown): void;
  /** Once: true when the stream ended normally, false when it failed or the caller went away. */
  onEnd(completed: boolean): void;
}

const EVENT_END = /\r?\n\r?\n/;

/** The JSON of an event's `data:` lines, or undefined (`[DONE]`, comments, not JSON). */
function eventData(block: string): { text: string; json: unknown } | undefined {
  const lines = block.split(/\r?\n/).filter((line) => line.startsWith('data:'));
  if (lines.length === 0) return undefined;
  const text = lines.map((line) => line.slice(5).replace(/^ /, '')).join('\n');
  if (text === '[DONE]') return undefined;
  try {
    return { text, json: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** What to send the caller for one event block (null: nothing). */
function relayed(block: string, data: { json: unknown } | undefined, hideUsage: boolean): string | null {
  if (!hideUsage || data === undefined || data.json === null || typeof data.json !== 'object') return `${block}\n\n`;
  const chunk = data.json as Record<string, unknown>;
  if (!('usage' in chunk)) return `${block}\n\n`;
  if (Array.isArray(chunk['choices']) && chunk['choices'].length === 0 && chunk['usage'] !== null) return null;
  const { usage: _hidden, ...rest } = chunk;
  return `data: ${JSON.stringify(rest)}\n\n`;
}

/** `source` followed as {@link EventStreamFollower} says; destroying the answer destroys `source`. */
export function followEventStream(source: Readable, follower: EventStreamFollower): Readable {
  let pending = '';
  const handle = (block: string, push: (text: string) => void) => {
    if (block.trim() === '') return;
    const data = eventData(block);
    if (data !== undefined) follower.onChunk(data.json);
    const text = relayed(block, data, follower.hideUsage);
    if (text !== null) push(text);
  };
  const tap = new Transform({
    transform(chunk: Buffer | string, _encoding, callback) {
      pending += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      let match = EVENT_END.exec(pending);
      while (match !== null) {
        handle(pending.slice(0, match.index), (text) => this.push(text));
        pending = pending.slice(match.index + match[0].length);
        match = EVENT_END.exec(pending);
      }
      callback();
    },
    flush(callback) {
      handle(pending, (text) => this.push(text));
      pending = '';
      callback();
    },
  });
  let reported = false;
  pipeline(source, tap, (error) => {
    if (reported) return;
    reported = true;
    follower.onEnd(error === undefined || error === null);
  });
  return tap;
}
