/**
 * The built-in engine: answers chat, completions and embeddings deterministically, without weights.
 * Chat echoes the last user message, completion echoes the prompt, an embedding is derived from
 * SHA-256 of the text. `max_tokens` (or `max_completion_tokens`) cuts the answer to that many words.
 * Streams yield one word per chunk; with `stream_options: {include_usage: true}`, as OpenAI does, every
 * chunk carries `usage: null` and a last chunk with empty `choices` carries the usage.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { components } from '../generated/openapi.js';
import type { ModelRecord } from './model-records.js';

type ChatRequest = components['schemas']['ChatCompletionRequest'];
type CompletionRequest = components['schemas']['CompletionRequest'];
type EmbeddingRequest = components['schemas']['EmbeddingRequest'];
type ChatMessage = components['schemas']['ChatMessage'];

/** Words as the built-in engine counts tokens. */
function words(text: string): string[] {
  return text.split(/(?<=\s)/).filter((w) => w !== '');
}

function countTokens(text: string): number {
  return text.split(/\s+/).filter((w) => w !== '').length;
}

function textOf(message: ChatMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part['text'] === 'string' ? part['text'] : '')).join('');
  }
  return '';
}

function limit(text: string, maxTokens: number | null | undefined): { text: string; finishReason: 'stop' | 'length' } {
  if (maxTokens === null || maxTokens === undefined) return { text, finishReason: 'stop' };
  const all = words(text);
  return all.length <= maxTokens ? { text, finishReason: 'stop' } : { text: all.slice(0, maxTokens).join('').trimEnd(), finishReason: 'length' };
}

/** Seconds since the epoch at `epochMs` (the `created` field). */
const seconds = (epochMs: number): number => Math.floor(epochMs / 1000);

/** The answer of a chat request: the last user message, cut to `max_tokens` words. */
function chatAnswer(request: ChatRequest): { text: string; finishReason: 'stop' | 'length'; promptTokens: number } {
  const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
  const promptTokens = request.messages.reduce((sum, m) => sum + countTokens(textOf(m)), 0);
  return { ...limit(lastUser === undefined ? '' : textOf(lastUser), request.max_completion_tokens ?? request.max_tokens), promptTokens };
}

/** A chat completion. */
export function builtinChat(model: ModelRecord, request: ChatRequest, now: number): components['schemas']['ChatCompletion'] {
  const answer = chatAnswer(request);
  const completionTokens = countTokens(answer.text);
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: seconds(now),
    model: model.uid,
    choices: [{ index: 0, message: { role: 'assistant', content: answer.text }, finish_reason: answer.finishReason }],
    usage: { prompt_tokens: answer.promptTokens, completion_tokens: completionTokens, total_tokens: answer.promptTokens + completionTokens },
  };
}

/** A chat completion as stream chunks (JSON objects, one per server-sent event). */
export function* builtinChatChunks(model: ModelRecord, request: ChatRequest, now: number): Generator<object> {
  const answer = chatAnswer(request);
  const withUsage = wantsUsage(request);
  const base = { id: `chatcmpl-${randomUUID()}`, object: 'chat.completion.chunk', created: seconds(now), model: model.uid, ...(withUsage ? { usage: null } : {}) };
  yield { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] };
  for (const word of words(answer.text)) yield { ...base, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] };
  yield { ...base, choices: [{ index: 0, delta: {}, finish_reason: answer.finishReason }] };
  if (withUsage) yield { ...base, choices: [], usage: usage(answer.promptTokens, countTokens(answer.text)) };
}

/** True when the request asked for the final usage chunk (`stream_options: {include_usage: true}`). */
function wantsUsage(request: ChatRequest | CompletionRequest): boolean {
  return request.stream_options?.include_usage === true;
}

function usage(promptTokens: number, completionTokens: number): components['schemas']['Usage'] {
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

function promptText(request: CompletionRequest): string {
  return Array.isArray(request.prompt) ? request.prompt.join('\n') : request.prompt;
}

/** A text completion: the prompt, cut to `max_tokens` words. */
export function builtinCompletion(model: ModelRecord, request: CompletionRequest, now: number): components['schemas']['Completion'] {
  const prompt = promptText(request);
  const answer = limit(prompt, request.max_tokens);
  const promptTokens = countTokens(prompt);
  const completionTokens = countTokens(answer.text);
  return {
    id: `cmpl-${randomUUID()}`,
    object: 'text_completion',
    created: seconds(now),
    model: model.uid,
    choices: [{ index: 0, text: answer.text, finish_reason: answer.finishReason }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

/** A text completion as stream chunks. */
export function* builtinCompletionChunks(model: ModelRecord, request: CompletionRequest, now: number): Generator<object> {
  const prompt = promptText(request);
  const answer = limit(prompt, request.max_tokens);
  const withUsage = wantsUsage(request);
  const base = { id: `cmpl-${randomUUID()}`, object: 'text_completion', created: seconds(now), model: model.uid, ...(withUsage ? { usage: null } : {}) };
  for (const word of words(answer.text)) yield { ...base, choices: [{ index: 0, text: word, finish_reason: null }] };
  yield { ...base, choices: [{ index: 0, text: '', finish_reason: answer.finishReason }] };
  if (withUsage) yield { ...base, choices: [], usage: usage(countTokens(prompt), countTokens(answer.text)) };
}

/** A unit-length vector of `dimensions` numbers derived from SHA-256 of `text`. */
export function hashEmbedding(text: string, dimensions: number): number[] {
  const values: number[] = [];
  for (let block = 0; values.length < dimensions; block++) {
    const digest = createHash('sha256').update(`${block}:`).update(text).digest();
    for (let i = 0; i + 1 < digest.length && values.length < dimensions; i += 2) values.push(digest.readInt16BE(i) / 32768);
  }
  const norm = Math.sqrt(values.reduce((sum, v) => sum + v * v, 0)) || 1;
  return values.map((v) => v / norm);
}

/** Little-endian float32 bytes, base64-encoded (OpenAI's `encoding_format: base64`). */
function toBase64Float32(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}

/** Embeddings of every input. */
export function builtinEmbeddings(model: ModelRecord, request: EmbeddingRequest): components['schemas']['EmbeddingList'] {
  const inputs = Array.isArray(request.input) ? request.input : [request.input];
  const dimensions = model.dimensions ?? 64;
  const tokens = inputs.reduce((sum, text) => sum + countTokens(text), 0);
  return {
    object: 'list',
    model: model.uid,
    data: inputs.map((text, index) => {
      const vector = hashEmbedding(text, dimensions);
      return { object: 'embedding', index, embedding: request.encoding_format === 'base64' ? toBase64Float32(vector) : vector };
    }),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
