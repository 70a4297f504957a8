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
import type { Api } from './api.js';
import { readEvents } from './server-sent-events.js';
import { unwrap, unwrapStream } from './unwrap.js';

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
   * `POST /v1/chat/completions` with `stream: true`: the chunks as they arrive.
   *
   * @example
   * for await (const chunk of client.inference.streamChatCompletion({ model: 'my-echo', messages })) {
   *   process.stdout.write(chunk.choices[0]?.delta.content ?? '');
   * }
   */
  async *streamChatCompletion(body: ChatCompletionRequest, options?: RequestOptions): AsyncGenerator<ChatCompletionChunk> {
    const response = await unwrapStream(this.#api.POST('/v1/chat/completions', { ...this.#api.callInit(options), body: { ...body, stream: true }, parseAs: 'stream' }));
    yield* readEvents<ChatCompletionChunk>(response.body, response.headers);
  }

  /** `POST /v1/completions`. */
  completion(body: CompletionRequest, options?: RequestOptions): Promise<Completion> {
    return unwrap(this.#api.POST('/v1/completions', { ...this.#api.callInit(options), body: { ...body, stream: false } })) as Promise<Completion>;
  }

  /** `POST /v1/completions` with `stream: true`: the chunks as they arrive. */
  async *streamCompletion(body: CompletionRequest, options?: RequestOptions): AsyncGenerator<CompletionChunk> {
    const response = await unwrapStream(this.#api.POST('/v1/completions', { ...this.#api.callInit(options), body: { ...body, stream: true }, parseAs: 'stream' }));
    yield* readEvents<CompletionChunk>(response.body, response.headers);
  }

  /** `POST /v1/embeddings`. */
  embeddings(body: EmbeddingRequest, options?: RequestOptions): Promise<EmbeddingList> {
    return unwrap(this.#api.POST('/v1/embeddings', { ...this.#api.callInit(options), body }));
  }
}
