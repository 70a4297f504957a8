/**
 * {@link Stream}: the streamed answer of a call, shaped like openai-node's `Stream`. It is
 * async-iterable (once), can be aborted through its `controller`, split with `tee()` and turned into a
 * `ReadableStream` of JSON Lines with `toReadableStream()`.
 */
import { SvcError } from './errors.js';

/**
 * Items as they arrive from the server.
 *
 * The request is sent when iteration starts. Leaving a `for await` loop early (`break`, `return`, an
 * exception) aborts it; so does `stream.controller.abort()`, after which iteration ends quietly. An
 * abort before the answer arrived throws `APIUserAbortError`.
 *
 * @example
 * const stream = client.inference.streamChatCompletion({ model: 'my-echo', messages });
 * const [forLog, forUser] = stream.tee();
 * for await (const chunk of forUser) process.stdout.write(chunk.choices[0]?.delta.content ?? '');
 */
export class Stream<Item> implements AsyncIterable<Item> {
  /** Aborts the request and ends iteration. */
  readonly controller: AbortController;
  readonly #iterate: () => AsyncIterator<Item>;
  #consumed = false;

  /** @param iterate - starts reading; called once, by the first iteration. */
  constructor(iterate: () => AsyncIterator<Item>, controller: AbortController) {
    this.#iterate = iterate;
    this.controller = controller;
  }

  /**
   * A stream over `source`, run on `controller`'s signal: an error after an abort ends iteration
   * quietly, and leaving the loop early aborts.
   */
  static from<Item>(source: (signal: AbortSignal) => AsyncIterable<Item>, controller = new AbortController()): Stream<Item> {
    return new Stream(() => iterateUntilAborted(source, controller), controller);
  }

  [Symbol.asyncIterator](): AsyncIterator<Item> {
    if (this.#consumed) throw new SvcError('This stream was iterated already: use tee() to read it twice');
    this.#consumed = true;
    return this.#iterate();
  }

  /** Two streams that each yield every item, read at their own pace (one request underneath). */
  tee(): [Stream<Item>, Stream<Item>] {
    const queues: [Promise<IteratorResult<Item>>[], Promise<IteratorResult<Item>>[]] = [[], []];
    let source: AsyncIterator<Item> | undefined;
    const branch = (own: Promise<IteratorResult<Item>>[]): AsyncIterator<Item> => ({
      next: () => {
        if (own.length === 0) {
          source ??= this[Symbol.asyncIterator]();
          const result = source.next();
          queues[0].push(result);
          queues[1].push(result);
        }
        return own.shift() as Promise<IteratorResult<Item>>;
      },
    });
    return [new Stream(() => branch(queues[0]), this.controller), new Stream(() => branch(queues[1]), this.controller)];
  }

  /** The items as JSON Lines bytes (one JSON value and `\n` per item), e.g. to answer a browser from a server. */
  toReadableStream(): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    let iterator: AsyncIterator<Item> | undefined;
    return new ReadableStream<Uint8Array>({
      start: () => {
        iterator = this[Symbol.asyncIterator]();
      },
      pull: async (readable) => {
        try {
          const { value, done } = await (iterator as AsyncIterator<Item>).next();
          if (done === true) readable.close();
          else readable.enqueue(encoder.encode(`${JSON.stringify(value)}\n`));
        } catch (error) {
          readable.error(error);
        }
      },
      cancel: async () => {
        await iterator?.return?.();
      },
    });
  }
}

async function* iterateUntilAborted<Item>(source: (signal: AbortSignal) => AsyncIterable<Item>, controller: AbortController): AsyncGenerator<Item> {
  let finished = false;
  try {
    yield* source(controller.signal);
    finished = true;
  } catch (error) {
    // Aborted through the controller once the answer was streaming: end quietly, as openai-node does.
    if (controller.signal.aborted && (error as Error | undefined)?.name !== 'APIUserAbortError') return;
    throw error;
  } finally {
    if (!finished) controller.abort();
  }
}
