/**
 * OpenAI-compatible inference (`models:read`): chat completions, completions and embeddings, with
 * streaming as async iterables. (Any OpenAI SDK works too: see {@link Client.openaiBaseUrl}.)
 */
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  Completion,
  CompletionChunk,
  CompletionRequest,
  EmbeddingList,
  EmbeddingRequest,
} from '../types.js';
import type { RequestOptions } from '../request-options.js';
import { Stream } from '../stream.js';
import type { Api, CallInit } from './api.js';
import { readEvents } from './server-sent-events.js';
import { unwrap, unwrapEventStream, type FetchResult } from './unwrap.js';

/** `client.inference`. */
export class InferenceResource {
  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /**
   * `POST /v1/chat/completions`.
   *
   * @example
   * const chat = await client.inference.chatCompletion({ model: 'my-echo', messages: [{ role: 'user', content: 'Hi' }] });
   */
  chatCompletion(body: ChatCompletionRequest, options?: RequestOptions): Promise<ChatCompletion> {
    return unwrap(this.#api.POST('/v1/chat/completions', { ...this.#api.callInit(options), body: { ...body, stream: false } })) as Promise<ChatCompletion>;
  }

  /**
   * `POST /v1/chat/completions` with `stream: true`: a {@link Stream} of the chunks as they arrive
   * (sent when iteration starts). An answer that is not an event stream throws instead of ending empty.
   *
   * @example
   * for await (const chunk of client.inference.streamChatCompletion({ model: 'my-echo', messages })) {
   *   process.stdout.write(chunk.choices[0]?.delta.content ?? '');
   * }
   */
  streamChatCompletion(body: ChatCompletionRequest, options?: RequestOptions): Stream<ChatCompletionChunk> {
    return this.#stream(options, (init) => this.#api.POST('/v1/chat/completions', { ...init, body: { ...body, stream: true }, parseAs: 'stream' }));
  }

  /** `POST /v1/completions`. */
  completion(body: CompletionRequest, options?: RequestOptions): Promise<Completion> {
    return unwrap(this.#api.POST('/v1/completions', { ...this.#api.callInit(options), body: { ...body, stream: false } })) as Promise<Completion>;
  }

  /** `POST /v1/completions` with `stream: true`: a {@link Stream} of the chunks as they arrive. */
  streamCompletion(body: CompletionRequest, options?: RequestOptions): Stream<CompletionChunk> {
    return this.#stream(options, (init) => this.#api.POST('/v1/completions', { ...init, body: { ...body, stream: true }, parseAs: 'stream' }));
  }

  /**
   * `POST /v1/embeddings`. The vectors are `number[]` (`encoding_format` `float`, the default), or
   * base64 strings for `encoding_format: 'base64'`.
   *
   * @example
   * const { data } = await client.inference.embeddings({ model: 'my-embedder', input: 'hello' });
   * const length: number = data[0]!.embedding.length;
   */
  embeddings(body: EmbeddingRequest & { encoding_format: 'base64' }, options?: RequestOptions): Promise<EmbeddingList<string>>;
  embeddings(body: EmbeddingRequest & { encoding_format?: 'float' }, options?: RequestOptions): Promise<EmbeddingList<number[]>>;
  embeddings(body: EmbeddingRequest, options?: RequestOptions): Promise<EmbeddingList<number[] | string>>;
  embeddings(body: EmbeddingRequest, options?: RequestOptions): Promise<EmbeddingList<number[] | string>> {
    return unwrap(this.#api.POST('/v1/embeddings', { ...this.#api.callInit(options), body })) as Promise<EmbeddingList<number[] | string>>;
  }

  /** A {@link Stream} of the events `send` answers, on its own controller (aborted with the caller's signal). */
  #stream<Chunk>(options: RequestOptions | undefined, send: (init: CallInit) => Promise<FetchResult<unknown>>): Stream<Chunk> {
    const init = this.#api.callInit(options);
    const controller = new AbortController();
    const caller = options?.signal;
    if (caller?.aborted === true) controller.abort(caller.reason);
    else caller?.addEventListener('abort', () => controller.abort(caller.reason), { once: true });
    return Stream.from(async function* (signal) {
      const answer = await unwrapEventStream(send({ ...init, signal }));
      yield* readEvents<Chunk>(answer.body, answer.headers, signal);
    }, controller);
  }
}
