/**
 * OpenAI-compatible inference (`models:read`): chat completions, completions and embeddings, as
 * JSON or server-sent events. The caller going away aborts the upstream call.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Handlers, RawReply } from '../contract/handlers.js';
import type { InferenceAnswer, ModelCall } from '../models/inference-service.js';
import type { Services } from '../services/services.js';
import { noteModel } from './model-audit.js';

export function inferenceHandlers(services: Services): Pick<Handlers, 'createChatCompletion' | 'createCompletion' | 'createEmbedding'> {
  const { inference, models } = services;
  return {
    createChatCompletion: async ({ body, principal, request, reply }) => {
      await noteModel(request, models, body.model);
      return answer(await inference.chat(principal, body, modelCall(request, reply)));
    },
    createCompletion: async ({ body, principal, request, reply }) => {
      await noteModel(request, models, body.model);
      return answer(await inference.complete(principal, body, modelCall(request, reply)));
    },
    createEmbedding: async ({ body, principal, request, reply }) => {
      await noteModel(request, models, body.model);
      return answer(await inference.embed(principal, body, modelCall(request, reply)));
    },
  };
}

/** The call's signal, and the epochs the guard read for this request (the model lookup's only read). */
function modelCall(request: FastifyRequest, reply: FastifyReply): ModelCall {
  return { signal: callerGone(reply), ...(request.epochs === null ? {} : { epochs: request.epochs }) };
}

/** Aborted when the connection closes before the answer was sent. */
function callerGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

function answer(result: InferenceAnswer): RawReply | { status: 200; body: never } {
  if (result.kind === 'json') return { status: 200, body: result.body as never };
  const headers: Record<string, string> = { 'content-type': result.contentType };
  if (result.contentType.startsWith('text/event-stream')) headers['x-accel-buffering'] = 'no';
  return { status: 200, raw: result.body, headers };
}
