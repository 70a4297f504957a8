/**
 * The model routes' calls under usage limits and metering (issue 17): each chat, completion or
 * embedding call is admitted against the limits of its key and user (or refused with a 429 in the
 * error shape, `Retry-After` and the `x-ratelimit-*` headers), answered by {@link InferenceService},
 * and when it ends, settled with the tokens it really used and metered. A stream is admitted at its
 * start by the estimate of `limits/stream-admission.ts` and settled when its last chunk passes; svc
 * asks the engine for `stream_options.include_usage` and keeps that chunk from a caller who did not.
 */
import { finished, type Readable } from 'node:stream';
import type { Principal } from '../auth/principal.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/openapi.js';
import { answerUsage, StreamUsage, type ModelCall, type ModelCallLimits, type ModelOperation } from '../limits/index.js';
import { noLimits } from '../limits/usage-limits.js';
import { followEventStream } from './event-stream-usage.js';
import type { InferenceAnswer, InferenceCall, InferenceService } from './inference-service.js';
import type { ModelAbility } from './model-records.js';

type ChatRequest = components['schemas']['ChatCompletionRequest'];
type CompletionRequest = components['schemas']['CompletionRequest'];
type EmbeddingRequest = components['schemas']['EmbeddingRequest'];

/** A request body of one of the three operations. */
type ModelRequest<Op extends ModelOperation> = Op extends 'chat' ? ChatRequest : Op extends 'completion' ? CompletionRequest : EmbeddingRequest;

/** The model ability each operation needs. */
const abilityOf: Record<ModelOperation, ModelAbility> = { chat: 'chat', completion: 'generate', embedding: 'embed' };

/** An answer with the rate-limit headers it carries. */
export interface MeteredAnswer {
  answer: InferenceAnswer;
  headers: Record<string, string>;
}

/** The usage of a complete JSON answer (an upstream's raw bytes are parsed; unreadable: none). */
function jsonOf(answer: InferenceAnswer): unknown {
  if (answer.kind === 'json') return answer.body;
  if (!Buffer.isBuffer(answer.body)) return null;
  try {
    return JSON.parse(answer.body.toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

/** `request` asking for the usage chunk of a stream; `added` when the caller had not asked. */
function withStreamUsage<T extends { stream?: boolean | null; stream_options?: unknown }>(request: T): { request: T; added: boolean } {
  if (request.stream !== true) return { request, added: false };
  const options = (request.stream_options ?? {}) as { include_usage?: boolean | null };
  if (options.include_usage === true) return { request, added: false };
  return { request: { ...request, stream_options: { ...options, include_usage: true } }, added: true };
}

/** Inference under the callers' usage limits, metered. */
export class MeteredInference {
  readonly #inference: InferenceService;
  readonly #limits: ModelCallLimits;

  constructor(inference: InferenceService, limits: ModelCallLimits) {
    this.#inference = inference;
    this.#limits = limits;
  }

  /** A chat completion. @throws {ApiError} 429 when a limit refuses it. */
  chat(principal: Principal, request: ChatRequest, call: InferenceCall = {}): Promise<MeteredAnswer> {
    return this.#run(principal, 'chat', request, call, (body) => this.#inference.chat(principal, body, call));
  }

  /** A text completion. @throws {ApiError} 429 when a limit refuses it. */
  complete(principal: Principal, request: CompletionRequest, call: InferenceCall = {}): Promise<MeteredAnswer> {
    return this.#run(principal, 'completion', request, call, (body) => this.#inference.complete(principal, body, call));
  }

  /** Embeddings. @throws {ApiError} 429 when a limit refuses it. */
  embed(principal: Principal, request: EmbeddingRequest, call: InferenceCall = {}): Promise<MeteredAnswer> {
    return this.#run(principal, 'embedding', request, call, (body) => this.#inference.embed(principal, body, call));
  }

  async #run<Op extends ModelOperation>(
    principal: Principal,
    operation: Op,
    request: ModelRequest<Op>,
    { epochs }: InferenceCall,
    answer: (body: ModelRequest<Op>) => Promise<InferenceAnswer>,
  ): Promise<MeteredAnswer> {
    // A model the caller may not use is no model call: it is refused before the limits and not
    // metered (so made-up model names never become usage rows or counters).
    await this.#inference.usableModel(principal, request.model, abilityOf[operation], epochs);
    const start = await this.#limits.begin({
      operation,
      model: request.model,
      body: request,
      party: {
        keyId: principal.apiKey?.id ?? null,
        keyLimits: principal.apiKey?.limits ?? noLimits,
        userId: principal.user?.id ?? null,
        userLimits: principal.user?.limits ?? noLimits,
      },
    });
    if (!start.admitted) throw new ApiError(start.code, start.message, { headers: start.headers });
    const { call } = start;
    const asked = withStreamUsage(request as ModelRequest<Op> & { stream?: boolean | null; stream_options?: unknown });
    let result: InferenceAnswer;
    try {
      result = await answer(asked.request);
    } catch (error) {
      await call.end({ usage: { promptTokens: 0, completionTokens: 0, estimated: false }, failed: true }).catch(() => undefined);
      throw error;
    }
    if (result.kind === 'raw' && !Buffer.isBuffer(result.body)) {
      if (!result.contentType.startsWith('text/event-stream')) {
        this.#settleWhenDone(result.body, call);
        return { answer: result, headers: start.headers };
      }
      return { answer: { ...result, body: this.#followed(result.body, call, asked.added) }, headers: start.headers };
    }
    // The answer is the caller's once the engine gave it: a settlement that cannot reach the database
    // (its slot then expires on its own) does not turn it into an error.
    const headers = await call.end({ usage: answerUsage(jsonOf(result), call.promptEstimate), failed: false }).catch(() => start.headers);
    return { answer: result, headers };
  }

  /** A streamed body that is not server-sent events: settled when it ends, by the prompt's estimate. */
  #settleWhenDone(stream: Readable, call: ModelCall): void {
    finished(stream, (error) => {
      void call.end({ usage: { promptTokens: call.promptEstimate, completionTokens: 0, estimated: true }, failed: error !== undefined && error !== null }).catch(() => {});
    });
  }

  /** The stream, settling and metering the call when it ends or is cut off. */
  #followed(stream: Readable, call: ModelCall, hideUsage: boolean): Readable {
    const usage = new StreamUsage(call.promptEstimate);
    return followEventStream(stream, {
      hideUsage,
      onChunk: (chunk) => usage.add(chunk),
      onEnd: (completed) => {
        void call.end({ usage: usage.result(), failed: !completed }).catch(() => {});
      },
    });
  }
}
