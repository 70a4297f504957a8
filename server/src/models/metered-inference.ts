/**
 * The model routes' calls under usage limits and metering (issue 17): each chat, completion or
 * embedding call is admitted against the limits of its key and user (or refused with a 429 in the
 * error shape, `Retry-After` and the `x-ratelimit-*` headers), answered by {@link InferenceService},
 * and when it ends, settled with the tokens it really used and metered. A stream is admitted at its
 * start by the estimate of `limits/stream-admission.ts` and settled when its last chunk passes; svc
 * asks the engine for `stream_options.include_usage` and keeps that chunk from a caller who did not.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Principal } from '../auth/principal.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/openapi.js';
import { answerUsage, StreamUsage, type ModelCall, type ModelCallLimits, type ModelOperation } from '../limits/index.js';
import { noLimits } from '../limits/usage-limits.js';
import { followEventStream } from './event-stream-usage.js';
import type { InferenceAnswer, InferenceService } from './inference-service.js';

type ChatRequest = components['schemas']['ChatCompletionRequest'];
type CompletionRequest = components['schemas']['CompletionRequest'];
type EmbeddingRequest = components['schemas']['EmbeddingRequest'];

/** A request body of one of the three operations. */
type ModelRequest<Op extends ModelOperation> = Op extends 'chat' ? ChatRequest : Op extends 'completion' ? CompletionRequest : EmbeddingRequest;

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
  chat(principal: Principal, request: ChatRequest, signal?: AbortSignal): Promise<MeteredAnswer> {
    return this.#run(principal, 'chat', request, (body) => this.#inference.chat(principal, body, signal));
  }

  /** A text completion. @throws {ApiError} 429 when a limit refuses it. */
  complete(principal: Principal, request: CompletionRequest, signal?: AbortSignal): Promise<MeteredAnswer> {
    return this.#run(principal, 'completion', request, (body) => this.#inference.complete(principal, body, signal));
  }

  /** Embeddings. @throws {ApiError} 429 when a limit refuses it. */
  embed(principal: Principal, request: EmbeddingRequest, signal?: AbortSignal): Promise<MeteredAnswer> {
    return this.#run(principal, 'embedding', request, (body) => this.#inference.embed(principal, body, signal));
  }

  async #run<Op extends ModelOperation>(principal: Principal, operation: Op, request: ModelRequest<Op>, answer: (body: ModelRequest<Op>) => Promise<InferenceAnswer>): Promise<MeteredAnswer> {
    const start = await this.#limits.begin({
      requestId: randomUUID(),
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
      await call.end({ usage: { promptTokens: 0, completionTokens: 0, estimated: false }, failed: true });
      throw error;
    }
    if (result.kind === 'raw' && !Buffer.isBuffer(result.body)) {
      return { answer: { ...result, body: this.#followed(result.body, call, asked.added) }, headers: start.headers };
    }
    const headers = await call.end({ usage: answerUsage(jsonOf(result), call.promptEstimate), failed: false });
    return { answer: result, headers };
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
