/**
 * The real `openai` npm package against a real svc server with an svc API key: svc is usable from
 * any OpenAI-compatible client by pointing its base URL at `{svc}/v1`.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import OpenAI, { AuthenticationError, PermissionDeniedError } from 'openai';
import { createKey, startFakeUpstream, useServerWithAdmin, type FakeUpstream } from '@svc/server/testing';

describe('the openai npm package against svc', () => {
  const ctx = useServerWithAdmin();
  let openai: OpenAI;
  let apiKey: string;
  let upstream: FakeUpstream;

  beforeAll(async () => {
    for (const body of [
      { model_uid: 'chat', model_name: 'echo' },
      { model_uid: 'embedder', model_name: 'hash-embedding', model_type: 'embedding' },
      { model_uid: 'secret-model', model_name: 'echo' },
    ]) {
      const response = await ctx.server.request('POST', '/v1/models', { token: ctx.admin.accessToken, body });
      assert.equal(response.status, 200, response.text);
    }
    upstream = await startFakeUpstream();
    const remote = await ctx.server.request('POST', '/v1/models', {
      token: ctx.admin.accessToken,
      body: { model_uid: 'remote', model_name: 'upstream-llm', upstream_base_url: upstream.baseUrl },
    });
    assert.equal(remote.status, 200, remote.text);
    apiKey = (await createKey(ctx.server, ctx.admin.accessToken, { name: 'openai client' })).key;
    openai = new OpenAI({ baseURL: `${ctx.server.baseUrl}/v1`, apiKey, maxRetries: 0 });
  });
  afterAll(() => upstream.close());

  it('lists the models', async () => {
    const ids: string[] = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    assert.deepEqual(ids.sort(), ['chat', 'embedder', 'remote', 'secret-model']);
  });

  it('retrieves one model', async () => {
    const model = await openai.models.retrieve('chat');
    assert.equal(model.id, 'chat');
    assert.equal(model.object, 'model');
  });

  it('creates a chat completion', async () => {
    const chat = await openai.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'Hello, svc' }] });
    assert.equal(chat.choices[0]?.message.content, 'Hello, svc');
    assert.equal(chat.choices[0]?.finish_reason, 'stop');
  });

  it('streams a chat completion', async () => {
    const stream = await openai.chat.completions.create({ model: 'chat', stream: true, messages: [{ role: 'user', content: 'one two three' }] });
    let text = '';
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      text += chunk.choices[0]?.delta.content ?? '';
    }
    assert.equal(text, 'one two three');
    assert.ok(chunks >= 4, `${chunks} chunks`);
  });

  it('sends the final usage chunk for stream_options.include_usage, as OpenAI does', async () => {
    const stream = await openai.chat.completions.create({
      model: 'chat',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'one two three' }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1);
    assert.deepEqual(last?.choices, []);
    assert.deepEqual(last?.usage, { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 });
    assert.ok(chunks.slice(0, -1).every((chunk) => chunk.usage === null && chunk.choices.length === 1));
    assert.equal(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''), 'one two three');

    const completion = await openai.completions.create({ model: 'chat', prompt: 'a b', stream: true, stream_options: { include_usage: true } });
    let usage: unknown;
    for await (const chunk of completion) usage = chunk.usage ?? usage;
    assert.deepEqual(usage, { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 });
  });

  it('passes stream_options through to an upstream, and its usage chunk back', async () => {
    const stream = await openai.chat.completions.create({ model: 'remote', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.deepEqual(chunks.at(-1)?.choices, []);
    assert.equal(chunks.at(-1)?.usage?.total_tokens, 4);
  });

  it('streams a chat completion through the upstream engine', async () => {
    const stream = await openai.chat.completions.create({ model: 'remote', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const parts: string[] = [];
    for await (const chunk of stream) parts.push(chunk.choices[0]?.delta.content ?? '');
    assert.equal(parts.join(''), 'Hello from upstream');
  });

  it('creates a text completion', async () => {
    const completion = await openai.completions.create({ model: 'chat', prompt: 'Once upon a time' });
    assert.equal(completion.choices[0]?.text, 'Once upon a time');
  });

  it('creates embeddings', async () => {
    const result = await openai.embeddings.create({ model: 'embedder', input: ['alpha', 'beta'] });
    assert.equal(result.data.length, 2);
    assert.equal(result.data[0]?.embedding.length, 64);
    // The package asks for base64 and decodes it: the same vector svc gives as floats.
    const direct = await ctx.server.request('POST', '/v1/embeddings', { token: apiKey, body: { model: 'embedder', input: 'alpha' } });
    const expected: number[] = direct.body.data[0].embedding;
    result.data[0]?.embedding.forEach((value, i) => assert.ok(Math.abs(value - (expected[i] ?? NaN)) < 1e-6));
  });

  it('a bad key surfaces as AuthenticationError carrying svc\'s message and code', async () => {
    const stranger = new OpenAI({ baseURL: `${ctx.server.baseUrl}/v1`, apiKey: 'sk-svc-thisIsNotAKeyOfThisServer0000000000000000000000000', maxRetries: 0 });
    await assert.rejects(
      () => stranger.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }),
      (error: unknown) => {
        assert.ok(error instanceof AuthenticationError, String(error));
        assert.equal(error.status, 401);
        assert.equal(error.code, 'invalid_api_key');
        assert.match(error.message, /API key/i);
        return true;
      },
    );
  });

  it('a model the key may not use surfaces as PermissionDeniedError naming the model', async () => {
    const restricted = await createKey(ctx.server, ctx.admin.accessToken, {
      name: 'chat only',
      model_permissions: [{ permission_type: 'model_id', permission_value: 'chat' }],
    });
    const client = new OpenAI({ baseURL: `${ctx.server.baseUrl}/v1`, apiKey: restricted.key, maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    assert.deepEqual(ids, ['chat']);
    await assert.rejects(
      () => client.chat.completions.create({ model: 'secret-model', messages: [{ role: 'user', content: 'hi' }] }),
      (error: unknown) => {
        assert.ok(error instanceof PermissionDeniedError, String(error));
        assert.equal(error.status, 403);
        assert.equal(error.code, 'model_access_denied');
        assert.match(error.message, /API key does not have access to model: secret-model/);
        return true;
      },
    );
  });
});
