import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { readLines } from './lines.js';
import { readEvents } from './server-sent-events.js';

const encoder = new TextEncoder();

/** A body that sends `chunks` one read at a time, and records whether it was cancelled. */
function body(chunks: Array<string | Uint8Array>, { endAfterChunks = true } = {}) {
  const state = { cancelled: false };
  let index = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index++];
      if (chunk !== undefined) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      else if (endAfterChunks) controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const collected: T[] = [];
  for await (const item of items) collected.push(item);
  return collected;
}

describe('readLines', () => {
  it('Should split on \\n and \\r\\n, across chunk boundaries, and keep a last line without a newline', async () => {
    const { stream } = body(['one\r', '\ntw', 'o\n\nthr', 'ee']);
    assert.deepEqual(await collect(readLines(stream)), ['one', 'two', '', 'three']);
  });

  it('Should not invent an empty last line after a final newline', async () => {
    const { stream } = body(['a\nb\n']);
    assert.deepEqual(await collect(readLines(stream)), ['a', 'b']);
  });

  it('Should decode a character whose bytes arrive in two chunks', async () => {
    const bytes = encoder.encode('é\n');
    const { stream } = body([bytes.slice(0, 1), bytes.slice(1)]);
    assert.deepEqual(await collect(readLines(stream)), ['é']);
  });

  it('Should cancel the body when the loop is left early', async () => {
    const { stream, state } = body(['first\nsecond\n'], { endAfterChunks: false });
    for await (const line of readLines(stream)) {
      assert.equal(line, 'first');
      break;
    }
    assert.equal(state.cancelled, true);
  });

  it('Should end a pending read when the signal fires', async () => {
    const { stream, state } = body(['first\n'], { endAfterChunks: false });
    const controller = new AbortController();
    const lines: string[] = [];
    for await (const line of readLines(stream, controller.signal)) {
      lines.push(line);
      controller.abort();
    }
    assert.deepEqual(lines, ['first']);
    assert.equal(state.cancelled, true);
  });
});

describe('readEvents', () => {
  it('Should join multi-line data, skip comments and other fields, and stop at [DONE]', async () => {
    const { stream } = body([': keep-alive\r\n\r\nevent: chunk\ndata: {"a":\ndata: 1}\n\n', 'data: [DONE]\n\ndata: {"a":2}\n\n']);
    assert.deepEqual(await collect(readEvents(stream, new Headers())), [{ a: 1 }]);
  });

  it('Should drop an event the end of the body cut short', async () => {
    const { stream } = body(['data: {"a":1}\n\ndata: {"a":2}\n']);
    assert.deepEqual(await collect(readEvents(stream, new Headers())), [{ a: 1 }]);
  });
});
