import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { describe, it } from 'vitest';
import { followEventStream } from './event-stream-usage.js';

const chunk = (content: string, usage?: unknown) => ({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }], ...(usage === undefined ? {} : { usage }) });
const usageChunk = { object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 } };
const event = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/** Reads `stream` whole. */
async function text(stream: Readable): Promise<string> {
  let all = '';
  for await (const piece of stream) all += String(piece);
  return all;
}

describe('following an event stream', () => {
  it('hands every chunk over, even split across writes, and passes the stream through as sent', async () => {
    const body = event(chunk('Hel', null)) + event(chunk('lo', null)) + event(usageChunk) + event('[DONE]');
    const seen: unknown[] = [];
    let completed: boolean | undefined;
    const pieces = [body.slice(0, 7), body.slice(7, 50), body.slice(50)];
    const followed = followEventStream(Readable.from(pieces), { hideUsage: false, onChunk: (data) => seen.push(data), onEnd: (done) => (completed = done) });
    assert.equal(await text(followed), body);
    assert.deepEqual(seen, [chunk('Hel', null), chunk('lo', null), usageChunk]);
    assert.equal(completed, true);
  });

  it('keeps the usage svc asked for from a caller who did not: the usage chunk and the usage: null fields', async () => {
    const body = event(chunk('Hi', null)) + event(usageChunk) + event('[DONE]');
    const seen: unknown[] = [];
    const followed = followEventStream(Readable.from([body]), { hideUsage: true, onChunk: (data) => seen.push(data), onEnd: () => {} });
    assert.equal(await text(followed), event(chunk('Hi')) + event('[DONE]'));
    assert.deepEqual(seen.at(-1), usageChunk, 'the meter still reads it');
  });

  it('reports a stream cut off as not completed', async () => {
    const source = new PassThrough();
    let reportEnd: (completed: boolean) => void = () => {};
    const ended = new Promise<boolean>((resolve) => (reportEnd = resolve));
    const followed = followEventStream(source, { hideUsage: false, onChunk: () => {}, onEnd: (done) => reportEnd(done) });
    followed.resume();
    source.write(event(chunk('partial')));
    followed.destroy();
    assert.equal(await ended, false);
    assert.equal(source.destroyed, true, 'the engine\'s stream is closed with it');
  });
});
