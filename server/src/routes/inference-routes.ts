/**
 * OpenAI-compatible inference (`models:read`): chat completions, completions and embeddings, as
 * JSON or server-sent events, under the caller's usage limits and metered (`models/metered-inference.ts`);
 * every answer carries the `x-ratelimit-*` headers of the limits that apply. The caller going away
 * aborts the upstream call.
 */
import type { FastifyReply } from 'fastify';
import type { Handlers, RawReply } from '../contract/handlers.js';
import type { MeteredAnswer } from '../models/metered-inference.js';
import type { Services } from '../services/services.js';
import { noteModel } from './model-audit.js';

export function inferenceHandlers(services: Services): Pick<Handlers, 'createChatCompletion' | 'createCompletion' | 'createEmbedding'> {
  const { modelCalls, models } = services;
  return {
    createChatCompletion: async ({ body, principal, request, reply }) => {
      await noteModel(request, models, body.model);
      return answer(await modelCalls.chat(principal, body, callerGone(reply)));
    },
    createCompletion: async ({ body, principal, request, reply }) => {
      await noteModel(request, models, body.model);
      return answer(await modelCalls.complete(principal, body, callerGone(reply)));
    },
    createEmbedding: async ({ body, principal, request, reply }) => {
      await noteModel(request, models, body.model);
      return answer(await modelCalls.embed(principal, body, callerGone(reply)));
    },
  };
}

/** Aborted when the connection closes before the answer was sent. */
function callerGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

function answer({ answer: result, headers: limitHeaders }: MeteredAnswer): RawReply | { status: 200; body: never; headers: Record<string, string> } {
  if (result.kind === 'json') return { status: 200, body: result.body as never, headers: limitHeaders };
  const headers: Record<string, string> = { ...limitHeaders, 'content-type': result.contentType };
  if (result.contentType.startsWith('text/event-stream')) headers['x-accel-buffering'] = 'no';
  return { status: 200, raw: result.body, headers };
}
