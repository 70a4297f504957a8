/**
 * OpenAI-compatible inference (`models:read`): chat completions, completions and embeddings, with
 * streaming as async iterables. (Any OpenAI SDK works too: see {@link Client.openaiBaseUrl}.)
 */
import { APIError } from '../errors.js';
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
import type { Api } from './api.js';
import { readEvents } from './server-sent-events.js';
import { unwrap } from './unwrap.js';

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
  chatCompletion(body: ChatCompletionRequest): Promise<ChatCompletion> {
    return unwrap(this.#api.POST('/v1/chat/completions', { body: { ...body, stream: false } })) as Promise<ChatCompletion>;
  }

  /**
   * `POST /v1/chat/completions` with `stream: true`: the chunks as they arrive.
   *
   * @example
   * for await (const chunk of client.inference.streamChatCompletion({ model: 'my-echo', messages })) {
   *   process.stdout.write(chunk.choices[0]?.delta.content ?? '');
   * }
   */
  async *streamChatCompletion(body: ChatCompletionRequest): AsyncGenerator<ChatCompletionChunk> {
    const response = await unwrapStream(this.#api.POST('/v1/chat/completions', { body: { ...body, stream: true }, parseAs: 'stream' }));
    yield* readEvents<ChatCompletionChunk>(response.body, response.status, response.headers);
  }

  /** `POST /v1/completions`. */
  completion(body: CompletionRequest): Promise<Completion> {
    return unwrap(this.#api.POST('/v1/completions', { body: { ...body, stream: false } })) as Promise<Completion>;
  }

  /** `POST /v1/completions` with `stream: true`: the chunks as they arrive. */
  async *streamCompletion(body: CompletionRequest): AsyncGenerator<CompletionChunk> {
    const response = await unwrapStream(this.#api.POST('/v1/completions', { body: { ...body, stream: true }, parseAs: 'stream' }));
    yield* readEvents<CompletionChunk>(response.body, response.status, response.headers);
  }

  /** `POST /v1/embeddings`. */
  embeddings(body: EmbeddingRequest): Promise<EmbeddingList> {
    return unwrap(this.#api.POST('/v1/embeddings', { body }));
  }
}

/** The streamed response of a success, or the typed error of a failure. */
async function unwrapStream(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<{ body: ReadableStream<Uint8Array>; status: number; headers: Headers }> {
  const result = await unwrap(call.then((r) => ({ ...r, data: r.response })));
  const body = result.body;
  if (body === null) throw APIError.from(502, { detail: 'The server answered a stream request without a body' }, result.headers);
  return { body, status: result.status, headers: result.headers };
}
