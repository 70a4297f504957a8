/**
 * OpenAI-compatible inference: finds the model (with the caller's key restrictions), checks that it
 * can do what is asked and the system-message rule, and answers through its engine — as JSON, or as
 * server-sent events when `stream` is true.
 */
import { Readable } from 'node:stream';
import type { Principal } from '../auth/principal.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/openapi.js';
import type { ModelAbility, ModelRecord } from './model-records.js';
import { builtinChat, builtinChatChunks, builtinCompletion, builtinCompletionChunks, builtinEmbeddings } from './builtin-engine.js';
import type { Clock } from '../runtime/clock.js';
import type { Epochs } from '../storage/port/index.js';
import type { ModelService } from './model-service.js';
import type { UpstreamEngine } from './upstream-engine.js';

type ChatRequest = components['schemas']['ChatCompletionRequest'];
type CompletionRequest = components['schemas']['CompletionRequest'];
type EmbeddingRequest = components['schemas']['EmbeddingRequest'];

/** An inference answer: a JSON object, raw JSON bytes from an upstream, or an event stream. */
export type InferenceAnswer =
  | { kind: 'json'; body: object; model: ModelRecord }
  | { kind: 'raw'; contentType: string; body: Buffer | Readable; model: ModelRecord };

/** What a model call brings besides its body. */
export interface InferenceCall {
  /** Aborted when the caller went away: the upstream call is abandoned. */
  signal?: AbortSignal;
  /**
   * The change feed's epochs the request pipeline read once for this request (`request.epochs`):
   * the model lookup uses them instead of a read of its own (on PostgreSQL a round trip).
   */
  epochs?: Epochs | Promise<Epochs>;
}

const abilityNames: Record<ModelAbility, string> = { chat: 'chat completions', generate: 'completions', embed: 'embeddings' };

/** Serves `/v1/chat/completions`, `/v1/completions` and `/v1/embeddings`. */
export class InferenceService {
  readonly #models: ModelService;
  readonly #upstream: UpstreamEngine;
  readonly #clock: Clock;

  constructor(models: ModelService, upstream: UpstreamEngine, clock: Clock) {
    this.#models = models;
    this.#upstream = upstream;
    this.#clock = clock;
  }

  /** A chat completion. */
  async chat(principal: Principal, request: ChatRequest, call: InferenceCall = {}): Promise<InferenceAnswer> {
    const model = await this.#usableModel(principal, request.model, 'chat', call.epochs);
    if (model.requiresSystemMessageFirst) assertSystemMessageFirst(request);
    if (model.engine === 'upstream') return this.#forward(model, '/chat/completions', request, call.signal);
    if (request.stream === true) return sse(model, builtinChatChunks(model, request, this.#clock.now()));
    return { kind: 'json', body: builtinChat(model, request, this.#clock.now()), model };
  }

  /** A text completion. */
  async complete(principal: Principal, request: CompletionRequest, call: InferenceCall = {}): Promise<InferenceAnswer> {
    const model = await this.#usableModel(principal, request.model, 'generate', call.epochs);
    if (model.engine === 'upstream') return this.#forward(model, '/completions', request, call.signal);
    if (request.stream === true) return sse(model, builtinCompletionChunks(model, request, this.#clock.now()));
    return { kind: 'json', body: builtinCompletion(model, request, this.#clock.now()), model };
  }

  /** Embeddings. */
  async embed(principal: Principal, request: EmbeddingRequest, call: InferenceCall = {}): Promise<InferenceAnswer> {
    const model = await this.#usableModel(principal, request.model, 'embed', call.epochs);
    if (model.engine === 'upstream') return this.#forward(model, '/embeddings', request, call.signal);
    return { kind: 'json', body: builtinEmbeddings(model, request), model };
  }

  /**
   * The model `uid` when the caller may use it for `ability`.
   *
   * @throws {ApiError} 404 `model_not_found`, 403 `model_access_denied` or 400 `model_ability_unsupported`, naming `model`.
   */
  usableModel(principal: Principal, uid: string, ability: ModelAbility, epochs?: Epochs | Promise<Epochs>): Promise<ModelRecord> {
    return this.#usableModel(principal, uid, ability, epochs);
  }

  async #usableModel(principal: Principal, uid: string, ability: ModelAbility, epochs: Epochs | Promise<Epochs> | undefined): Promise<ModelRecord> {
    let model: ModelRecord;
    try {
      model = await this.#models.get(principal, uid, epochs);
    } catch (error) {
      if (error instanceof ApiError) throw new ApiError(error.code, error.message, { param: 'model' });
      throw error;
    }
    if (!model.abilities.includes(ability)) {
      const can = model.abilities.map((a) => abilityNames[a]).join(', ') || 'nothing svc serves';
      throw new ApiError('model_ability_unsupported', `Model ${uid} does not serve ${abilityNames[ability]} (it serves ${can})`, { param: 'model' });
    }
    return model;
  }

  async #forward(model: ModelRecord, path: string, request: { model: string; stream?: boolean | null }, signal?: AbortSignal): Promise<InferenceAnswer> {
    const upstream = model.upstream;
    if (upstream === null) throw new ApiError('upstream_error', `Model ${model.uid} has no upstream`);
    const stream = request.stream === true;
    const reply = await this.#upstream.call({
      baseUrl: upstream.baseUrl,
      path,
      apiKey: this.#models.upstreamApiKey(model),
      body: { ...request, model: upstream.model },
      stream,
      ...(signal === undefined ? {} : { signal }),
    });
    return { kind: 'raw', contentType: reply.contentType, body: reply.kind === 'stream' ? reply.stream : reply.body, model };
  }
}

/** 400 naming `messages[0]` when a `system` message sits anywhere else. */
export function assertSystemMessageFirst(request: ChatRequest): void {
  const misplaced = request.messages.findIndex((message, index) => index > 0 && message.role === 'system');
  if (misplaced !== -1) {
    throw new ApiError(
      'system_message_not_first',
      `This model's chat template needs the system message first: the system message at messages[${misplaced}] must be messages[0]`,
      { param: 'messages' },
    );
  }
}

/** Chunks as server-sent events, ending with `data: [DONE]`. */
function sse(model: ModelRecord, chunks: Iterable<object>): InferenceAnswer {
  function* events(): Generator<string> {
    for (const chunk of chunks) yield `data: ${JSON.stringify(chunk)}\n\n`;
    yield 'data: [DONE]\n\n';
  }
  return { kind: 'raw', contentType: 'text/event-stream; charset=utf-8', body: Readable.from(events()), model };
}
