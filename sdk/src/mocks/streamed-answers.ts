/**
 * The mock's answers that are not the contract's single example: a chat or text completion asked
 * for with `stream: true` is streamed as server-sent events built from the example (one word per
 * chunk, the usage chunk for `stream_options.include_usage`, then `[DONE]`), and the audit export
 * asked for as `format=jsonl` answers JSON Lines of the contract's example audit records.
 */
import { HttpResponse } from 'msw';
import { operationExamples } from '../generated/examples.js';

interface ExampleCompletion {
  id: string;
  created: number;
  model: string;
  choices: { index: number; message?: { content?: string | null }; text?: string; finish_reason?: string | null }[];
  usage?: unknown;
}

/** The operations whose `stream: true` requests are answered with events. */
const STREAMED = new Set(['createChatCompletion', 'createCompletion']);

/** The streamed answer for `operationId`, or undefined when the request did not ask for one. */
export function streamedAnswer(operationId: string, example: unknown, body: unknown): Response | undefined {
  if (!STREAMED.has(operationId) || !isObject(body) || body['stream'] !== true) return undefined;
  const completion = example as ExampleCompletion;
  const includeUsage = isObject(body['stream_options']) && body['stream_options']['include_usage'] === true;
  const chunks = operationId === 'createChatCompletion' ? chatChunks(completion) : textChunks(completion);
  const base = { id: completion.id, created: completion.created, model: completion.model, ...(includeUsage ? { usage: null } : {}) };
  const events: Record<string, unknown>[] = chunks.map((chunk) => ({ ...base, ...chunk }));
  if (includeUsage) events.push({ ...base, ...events[0], choices: [], usage: completion.usage ?? null });
  const text = events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('') + 'data: [DONE]\n\n';
  return new HttpResponse(text, { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' } });
}

function chatChunks(completion: ExampleCompletion): Record<string, unknown>[] {
  const choice = completion.choices[0];
  const words = (choice?.message?.content ?? '').split(/(?<=\s)/).filter((word) => word !== '');
  const chunk = (delta: object, finish: string | null) => ({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
  return [chunk({ role: 'assistant', content: '' }, null), ...words.map((word) => chunk({ content: word }, null)), chunk({}, choice?.finish_reason ?? 'stop')];
}

function textChunks(completion: ExampleCompletion): Record<string, unknown>[] {
  const choice = completion.choices[0];
  const words = (choice?.text ?? '').split(/(?<=\s)/).filter((word) => word !== '');
  const chunk = (text: string, finish: string | null) => ({ object: 'text_completion', choices: [{ index: 0, text, finish_reason: finish }] });
  return [...words.map((word) => chunk(word, null)), chunk('', choice?.finish_reason ?? 'stop')];
}

/** The audit export as JSON Lines (`format=jsonl`), or undefined for another format. */
export function auditExportAnswer(operationId: string, request: Request): Response | undefined {
  if (operationId !== 'exportAudit' || new URL(request.url).searchParams.get('format') !== 'jsonl') return undefined;
  const search = operationExamples.find((operation) => operation.operationId === 'searchAudit')?.example as { hits?: unknown[] } | undefined;
  const lines = (search?.hits ?? []).map((record) => `${JSON.stringify(record)}\n`).join('');
  return new HttpResponse(lines, {
    status: 200,
    headers: { 'content-type': 'application/x-ndjson; charset=utf-8', 'content-disposition': 'attachment; filename="svc-audit.jsonl"' },
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
