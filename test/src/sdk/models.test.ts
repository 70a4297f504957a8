/**
 * The SDK's model, inference and operations resources against the real server (and, for the
 * upstream engine, a local OpenAI-compatible server).
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { BadRequestError, Client, ConflictError, InternalServerError, NotFoundError, PermissionDeniedError, type APIError } from '@svc/sdk';
import { createKey, startFakeUpstream, useServerWithAdmin, type FakeUpstream } from '@svc/server/testing';

async function rejectsWith(promise: Promise<unknown>, Class: abstract new (...args: never[]) => APIError, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof Class, `expected ${Class.name}, got ${String(error)}`);
    assert.equal(error.code, code);
    return true;
  });
}

describe('SDK: models, registrations and inference', () => {
  const ctx = useServerWithAdmin({ config: { upstreamTimeoutMs: 300 } });
  let client: Client;
  let upstream: FakeUpstream;
  beforeAll(async () => {
    client = new Client({ baseUrl: ctx.server.baseUrl, apiKey: (await createKey(ctx.server, ctx.admin.accessToken, { name: 'sdk models' })).key });
    upstream = await startFakeUpstream();
  });
  afterAll(() => upstream.close());

  it('launches, lists, gets and stops models', async () => {
    const launched = await client.models.launch({ model_uid: 'sdk-echo', model_name: 'echo' });
    assert.equal(launched.model_engine, 'builtin');
    assert.ok((await client.models.list()).some((model) => model.id === 'sdk-echo'));
    assert.equal((await client.models.get('sdk-echo')).model_name, 'echo');
    await rejectsWith(client.models.launch({ model_uid: 'sdk-echo', model_name: 'echo' }), ConflictError, 'model_uid_taken');
    await client.models.stop('sdk-echo');
    await rejectsWith(client.models.get('sdk-echo'), NotFoundError, 'model_not_found');
  });

  it('registers, lists and unregisters families', async () => {
    const family = await client.modelRegistrations.register('LLM', { model_name: 'sdk-family', requires_system_message_first: true });
    assert.equal(family.is_builtin, false);
    assert.ok((await client.modelRegistrations.list('LLM')).some((f) => f.model_name === 'sdk-family'));
    await client.models.launch({ model_uid: 'sdk-strict', model_name: 'sdk-family' });
    await rejectsWith(
      client.inference.chatCompletion({ model: 'sdk-strict', messages: [{ role: 'user', content: 'a' }, { role: 'system', content: 'b' }] }),
      BadRequestError,
      'system_message_not_first',
    );
    await client.models.stop('sdk-strict');
    await client.modelRegistrations.unregister('LLM', 'sdk-family');
    await rejectsWith(client.modelRegistrations.unregister('LLM', 'echo'), PermissionDeniedError, 'builtin_model_family');
  });

  it('chats, streams, completes and embeds', async () => {
    await client.models.launch({ model_uid: 'sdk-chat', model_name: 'echo' });
    await client.models.launch({ model_uid: 'sdk-embed', model_name: 'hash-embedding', model_type: 'embedding' });
    const chat = await client.inference.chatCompletion({ model: 'sdk-chat', messages: [{ role: 'user', content: 'hello sdk' }] });
    assert.equal(chat.choices[0]?.message.content, 'hello sdk');
    const parts: string[] = [];
    for await (const chunk of client.inference.streamChatCompletion({ model: 'sdk-chat', messages: [{ role: 'user', content: 'a b c' }] })) {
      parts.push(chunk.choices[0]?.delta.content ?? '');
    }
    assert.equal(parts.join(''), 'a b c');
    assert.equal((await client.inference.completion({ model: 'sdk-chat', prompt: 'p q' })).choices[0]?.text, 'p q');
    const texts: string[] = [];
    for await (const chunk of client.inference.streamCompletion({ model: 'sdk-chat', prompt: 'x y' })) texts.push(chunk.choices[0]?.text ?? '');
    assert.equal(texts.join(''), 'x y');
    const embeddings = await client.inference.embeddings({ model: 'sdk-embed', input: ['one', 'two'] });
    assert.equal(embeddings.data.length, 2);
  });

  it('a stream request that fails before streaming throws the typed error; a stalled upstream stream throws mid-way', async () => {
    const failing = client.inference.streamChatCompletion({ model: 'no-such', messages: [{ role: 'user', content: 'x' }] });
    await rejectsWith(failing[Symbol.asyncIterator]().next(), NotFoundError, 'model_not_found');
    await client.models.launch({ model_uid: 'sdk-remote', model_name: 'r', upstream_base_url: upstream.baseUrl });
    upstream.mode = { kind: 'stall-stream' };
    const received: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const chunk of client.inference.streamChatCompletion({ model: 'sdk-remote', messages: [{ role: 'user', content: 'x' }] })) {
          received.push(chunk.choices[0]?.delta.content ?? '');
        }
      })(),
      (error: unknown) => error instanceof InternalServerError && error.code === 'upstream_timeout',
    );
    assert.deepEqual(received, ['Hello']);
    upstream.mode = { kind: 'error', status: 500, message: 'boom' };
    await rejectsWith(client.inference.chatCompletion({ model: 'sdk-remote', messages: [{ role: 'user', content: 'x' }] }), InternalServerError, 'upstream_error');
  });
});

describe('SDK: cache, virtual environments, logs and metrics', () => {
  const ctx = useServerWithAdmin();
  let client: Client;
  beforeAll(async () => {
    client = new Client({ baseUrl: ctx.server.baseUrl, apiKey: (await createKey(ctx.server, ctx.admin.accessToken, { name: 'sdk ops' })).key });
  });

  it('lists and deletes cache entries and virtual environments', async () => {
    for (const name of ['cache', 'virtualenv']) {
      mkdirSync(join(ctx.server.home, name, 'm1'), { recursive: true });
      writeFileSync(join(ctx.server.home, name, 'm1', 'f'), 'abc');
    }
    assert.deepEqual((await client.cache.list()).list.map((e) => e.name), ['m1']);
    assert.deepEqual(await client.cache.delete('m1'), { name: 'm1', deleted: true, freed_bytes: 3 });
    assert.equal((await client.virtualenvs.list()).list[0]?.size_bytes, 3);
    assert.equal((await client.virtualenvs.delete('m1')).freed_bytes, 3);
    await rejectsWith(client.virtualenvs.delete('m1'), NotFoundError, 'entry_not_found');
  });

  it('reads the recent log lines and the Prometheus metrics', async () => {
    await client.models.launch({ model_uid: 'logged', model_name: 'echo' });
    const lines = await client.cluster.logs({ lines: 50 });
    assert.ok(lines.some((line) => line.message.includes('model logged launched')));
    const metrics = await client.monitoring.metrics();
    assert.match(metrics, /svc_http_requests_total\{method="POST",route="\/v1\/models",status="200"\} 1/);
  });
});
