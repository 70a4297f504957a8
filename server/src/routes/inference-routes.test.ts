import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertError, startFakeUpstream, useServerWithAdmin, type FakeUpstream, type TestServer } from '../testing/index.js';

/** The `data:` payloads of a server-sent-event body. */
function events(text: string): string[] {
  return text
    .split('\n\n')
    .map((block) => block.trim())
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

async function launch(server: TestServer, token: string, body: Record<string, unknown>): Promise<void> {
  const response = await server.request('POST', '/v1/models', { token, body });
  assert.equal(response.status, 200, response.text);
}

describe('inference with the built-in engine', () => {
  const ctx = useServerWithAdmin();
  beforeAll(async () => {
    await launch(ctx.server, ctx.admin.accessToken, { model_uid: 'chat', model_name: 'echo' });
    await launch(ctx.server, ctx.admin.accessToken, { model_uid: 'strict', model_name: 'echo-system-first' });
    await launch(ctx.server, ctx.admin.accessToken, { model_uid: 'embed', model_name: 'hash-embedding', model_type: 'embedding' });
  });

  it('answers a chat completion with the last user message', async () => {
    const response = await ctx.server.request('POST', '/v1/chat/completions', {
      token: ctx.admin.accessToken,
      body: { model: 'chat', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'Hello there' }], temperature: 0.2 },
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.object, 'chat.completion');
    assert.equal(response.body.model, 'chat');
    assert.equal(response.body.choices[0].message.content, 'Hello there');
    assert.equal(response.body.choices[0].finish_reason, 'stop');
    assert.equal(response.body.usage.completion_tokens, 2);
  });

  it('cuts the answer to max_tokens words (finish_reason length)', async () => {
    const response = await ctx.server.request('POST', '/v1/chat/completions', {
      token: ctx.admin.accessToken,
      body: { model: 'chat', max_tokens: 2, messages: [{ role: 'user', content: 'one two three four' }] },
    });
    assert.equal(response.body.choices[0].message.content, 'one two');
    assert.equal(response.body.choices[0].finish_reason, 'length');
  });

  it('streams a chat completion as server-sent events, one word per chunk, ending with [DONE]', async () => {
    const response = await ctx.server.request('POST', '/v1/chat/completions', {
      token: ctx.admin.accessToken,
      body: { model: 'chat', stream: true, messages: [{ role: 'user', content: 'streamed words here' }] },
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const data = events(response.text);
    assert.equal(data.at(-1), '[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    assert.equal(chunks[0].choices[0].delta.role, 'assistant');
    assert.equal(chunks.map((c) => c.choices[0].delta.content ?? '').join(''), 'streamed words here');
    assert.equal(chunks.at(-1).choices[0].finish_reason, 'stop');
    assert.ok(chunks.length >= 5);
  });

  it('sends the usage as a last chunk with empty choices for stream_options.include_usage, as OpenAI does', async () => {
    const response = await ctx.server.request('POST', '/v1/chat/completions', {
      token: ctx.admin.accessToken,
      body: { model: 'chat', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'three more words' }] },
    });
    assert.equal(response.status, 200, response.text);
    const data = events(response.text);
    assert.equal(data.at(-1), '[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    const last = chunks.at(-1);
    assert.deepEqual(last.choices, []);
    assert.deepEqual(last.usage, { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 });
    for (const chunk of chunks.slice(0, -1)) assert.equal(chunk.usage, null);
    assert.equal(chunks.at(-2).choices[0].finish_reason, 'stop');

    const completion = await ctx.server.request('POST', '/v1/completions', {
      token: ctx.admin.accessToken,
      body: { model: 'chat', prompt: 'a b', stream: true, stream_options: { include_usage: true } },
    });
    const completionChunks = events(completion.text).slice(0, -1).map((d) => JSON.parse(d));
    assert.deepEqual(completionChunks.at(-1).usage, { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 });
    assert.deepEqual(completionChunks.at(-1).choices, []);
  });

  it('sends no usage chunk without include_usage', async () => {
    for (const stream_options of [undefined, { include_usage: false }, null]) {
      const response = await ctx.server.request('POST', '/v1/chat/completions', {
        token: ctx.admin.accessToken,
        body: { model: 'chat', stream: true, ...(stream_options === undefined ? {} : { stream_options }), messages: [{ role: 'user', content: 'hi' }] },
      });
      const chunks = events(response.text).slice(0, -1).map((d) => JSON.parse(d));
      assert.ok(chunks.every((chunk) => chunk.choices.length === 1 && !('usage' in chunk)), JSON.stringify(stream_options));
    }
  });

  it('accepts content as an array of parts, and max_completion_tokens', async () => {
    const response = await ctx.server.request('POST', '/v1/chat/completions', {
      token: ctx.admin.accessToken,
      body: { model: 'chat', max_completion_tokens: 2, messages: [{ role: 'user', content: [{ type: 'text', text: 'one two ' }, { type: 'text', text: 'three' }] }] },
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.choices[0].message.content, 'one two');
  });

  it('refuses a content part without a type, and a known field of the wrong type (400, nothing answered)', async () => {
    const noType = await ctx.server.request('POST', '/v1/chat/completions', {
      token: ctx.admin.accessToken,
      body: { model: 'chat', messages: [{ role: 'user', content: [{ text: 'hi' }] }] },
    });
    assertError(noType, 400, 'invalid_request');
    const badTemperature = await ctx.server.request('POST', '/v1/chat/completions', {
      token: ctx.admin.accessToken,
      body: { model: 'chat', temperature: 'hot', messages: [{ role: 'user', content: 'hi' }] },
    });
    assertError(badTemperature, 400, 'invalid_request');
  });

  it('answers completions, plain and streamed', async () => {
    const plain = await ctx.server.request('POST', '/v1/completions', { token: ctx.admin.accessToken, body: { model: 'chat', prompt: 'Once upon' } });
    assert.equal(plain.status, 200, plain.text);
    assert.equal(plain.body.choices[0].text, 'Once upon');
    const streamed = await ctx.server.request('POST', '/v1/completions', { token: ctx.admin.accessToken, body: { model: 'chat', prompt: 'a time', stream: true } });
    const texts = events(streamed.text).slice(0, -1).map((d) => JSON.parse(d).choices[0].text);
    assert.equal(texts.join(''), 'a time');
  });

  it('answers deterministic unit-length embeddings, one per input', async () => {
    const first = await ctx.server.request('POST', '/v1/embeddings', { token: ctx.admin.accessToken, body: { model: 'embed', input: ['alpha', 'beta'] } });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.data.length, 2);
    const vector: number[] = first.body.data[0].embedding;
    assert.equal(vector.length, 64);
    assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-9);
    const again = await ctx.server.request('POST', '/v1/embeddings', { token: ctx.admin.accessToken, body: { model: 'embed', input: 'alpha' } });
    assert.deepEqual(again.body.data[0].embedding, vector);
    assert.notDeepEqual(first.body.data[1].embedding, vector);
  });

  it('refuses what a model cannot do (400 model_ability_unsupported) and unknown models (404 model_not_found)', async () => {
    assertError(await ctx.server.request('POST', '/v1/embeddings', { token: ctx.admin.accessToken, body: { model: 'chat', input: 'x' } }), 400, 'model_ability_unsupported');
    assertError(
      await ctx.server.request('POST', '/v1/chat/completions', { token: ctx.admin.accessToken, body: { model: 'embed', messages: [{ role: 'user', content: 'x' }] } }),
      400,
      'model_ability_unsupported',
    );
    const missing = await ctx.server.request('POST', '/v1/chat/completions', { token: ctx.admin.accessToken, body: { model: 'nope', messages: [{ role: 'user', content: 'x' }] } });
    assertError(missing, 404, 'model_not_found');
    assert.equal(missing.body.error.param, 'model');
  });

  it('for a family that needs the system message first, a system message elsewhere answers 400 naming messages[0]', async () => {
    const misplaced = await ctx.server.request('POST', '/v1/chat/completions', {
      token: ctx.admin.accessToken,
      body: { model: 'strict', messages: [{ role: 'user', content: 'hi' }, { role: 'system', content: 'rules' }] },
    });
    assertError(misplaced, 400, 'system_message_not_first');
    assert.match(misplaced.body.detail, /messages\[0\]/);
    assert.match(misplaced.body.detail, /messages\[1\]/);
    const first = await ctx.server.request('POST', '/v1/chat/completions', {
      token: ctx.admin.accessToken,
      body: { model: 'strict', messages: [{ role: 'system', content: 'rules' }, { role: 'user', content: 'hi' }] },
    });
    assert.equal(first.status, 200, first.text);
    const lenient = await ctx.server.request('POST', '/v1/chat/completions', {
      token: ctx.admin.accessToken,
      body: { model: 'chat', messages: [{ role: 'user', content: 'hi' }, { role: 'system', content: 'rules' }] },
    });
    assert.equal(lenient.status, 200, 'families without the rule accept a system message anywhere');
  });

  it('accepts bodies above the global 64 KiB limit up to the route limit (4 MiB), and refuses larger ones (413)', async () => {
    const big = 'word '.repeat(40_000);
    const accepted = await ctx.server.request('POST', '/v1/chat/completions', { token: ctx.admin.accessToken, body: { model: 'chat', messages: [{ role: 'user', content: big }] } });
    assert.equal(accepted.status, 200, accepted.text.slice(0, 200));
    const huge = 'x'.repeat(4 * 1024 * 1024 + 1);
    assertError(await ctx.server.request('POST', '/v1/embeddings', { token: ctx.admin.accessToken, body: { model: 'embed', input: huge } }), 413, 'payload_too_large');
    assertError(await ctx.server.request('POST', '/v1/models', { token: ctx.admin.accessToken, body: { model_name: 'echo', pad: big } }), 413, 'payload_too_large');
  });
});

describe('inference through the upstream engine', () => {
  const ctx = useServerWithAdmin({ config: { upstreamTimeoutMs: 400 } });
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    await launch(ctx.server, ctx.admin.accessToken, {
      model_uid: 'remote',
      model_name: 'remote-llm',
      upstream_base_url: upstream.baseUrl,
      upstream_api_key: 'upstream-key-0123456789',
      upstream_model: 'served-name',
    });
    await launch(ctx.server, ctx.admin.accessToken, { model_uid: 'remote-embed', model_name: 'e', model_type: 'embedding', upstream_base_url: upstream.baseUrl });
  });
  afterAll(() => upstream.close());

  it('forwards a chat completion with the upstream key and model name, and passes the answer through', async () => {
    upstream.mode = { kind: 'ok' };
    upstream.received.length = 0;
    const response = await ctx.server.request('POST', '/v1/chat/completions', {
      token: ctx.admin.accessToken,
      body: { model: 'remote', messages: [{ role: 'user', content: 'hi' }], temperature: 0.3 },
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.choices[0].message.content, 'Hello from upstream');
    const [received] = upstream.received;
    assert.equal(received?.path, '/v1/chat/completions');
    assert.equal(received?.authorization, 'Bearer upstream-key-0123456789');
    assert.equal(received?.body['model'], 'served-name');
    assert.equal(received?.body['temperature'], 0.3);
  });

  it('passes stream_options through to the upstream, and its usage chunk back', async () => {
    upstream.mode = { kind: 'ok' };
    upstream.received.length = 0;
    const response = await fetch(`${ctx.server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.admin.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'remote', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(response.status, 200);
    const data = events(await response.text());
    assert.deepEqual(upstream.received[0]?.body['stream_options'], { include_usage: true });
    const last = JSON.parse(data.at(-2) ?? '{}');
    assert.deepEqual(last.choices, []);
    assert.equal(typeof last.usage.total_tokens, 'number');
  });

  it('passes a stream through chunk by chunk', async () => {
    upstream.mode = { kind: 'ok' };
    const response = await fetch(`${ctx.server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.admin.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'remote', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const text = await response.text();
    const data = events(text);
    assert.equal(data.at(-1), '[DONE]');
    const words = data.slice(0, -1).map((d) => JSON.parse(d).choices[0].delta.content ?? '');
    assert.deepEqual(words, ['Hello', ' from', ' upstream', '']);
  });

  it('forwards completions and embeddings', async () => {
    upstream.mode = { kind: 'ok' };
    const completion = await ctx.server.request('POST', '/v1/completions', { token: ctx.admin.accessToken, body: { model: 'remote', prompt: 'x' } });
    assert.equal(completion.body.choices[0].text, 'upstream text');
    const embedding = await ctx.server.request('POST', '/v1/embeddings', { token: ctx.admin.accessToken, body: { model: 'remote-embed', input: 'x' } });
    assert.deepEqual(embedding.body.data[0].embedding, [0.5, -0.5]);
  });

  it('an upstream 500 answers 502 upstream_error without echoing the upstream body', async () => {
    upstream.mode = { kind: 'error', status: 500, message: 'model crashed' };
    const response = await ctx.server.request('POST', '/v1/chat/completions', { token: ctx.admin.accessToken, body: { model: 'remote', messages: [{ role: 'user', content: 'hi' }] } });
    assertError(response, 502, 'upstream_error');
    assert.equal(response.body.detail, 'The upstream model server answered HTTP 500');
    assert.ok(!response.text.includes('model crashed'));
    const streamed = await ctx.server.request('POST', '/v1/chat/completions', { token: ctx.admin.accessToken, body: { model: 'remote', stream: true, messages: [{ role: 'user', content: 'hi' }] } });
    assertError(streamed, 502, 'upstream_error');
  });

  it('an upstream 400 answers 400 invalid_request without echoing the upstream body', async () => {
    upstream.mode = { kind: 'error', status: 400, message: 'temperature out of range' };
    const response = await ctx.server.request('POST', '/v1/chat/completions', { token: ctx.admin.accessToken, body: { model: 'remote', messages: [{ role: 'user', content: 'hi' }] } });
    assertError(response, 400, 'invalid_request');
    assert.equal(response.body.detail, 'The upstream model server refused the request (HTTP 400)');
    assert.ok(!response.text.includes('temperature out of range'));
  });

  it('an upstream that hangs answers 504 upstream_timeout after the configured time-out', async () => {
    upstream.mode = { kind: 'hang' };
    const response = await ctx.server.request('POST', '/v1/chat/completions', { token: ctx.admin.accessToken, body: { model: 'remote', messages: [{ role: 'user', content: 'hi' }] } });
    assertError(response, 504, 'upstream_timeout');
    assert.match(response.body.detail, /400 ms/);
  });

  it('a stream that stalls ends with an error event carrying upstream_timeout', async () => {
    upstream.mode = { kind: 'stall-stream' };
    const response = await ctx.server.request('POST', '/v1/chat/completions', { token: ctx.admin.accessToken, body: { model: 'remote', stream: true, messages: [{ role: 'user', content: 'hi' }] } });
    assert.equal(response.status, 200);
    const data = events(response.text);
    assert.equal(JSON.parse(data[0] ?? '{}').choices[0].delta.content, 'Hello');
    assert.equal(JSON.parse(data.at(-1) ?? '{}').error.code, 'upstream_timeout');
  });

  it('an upstream that cannot be reached answers 502 upstream_unreachable', async () => {
    await launch(ctx.server, ctx.admin.accessToken, { model_uid: 'nowhere', model_name: 'x', upstream_base_url: 'http://127.0.0.1:1/v1' });
    const response = await ctx.server.request('POST', '/v1/chat/completions', { token: ctx.admin.accessToken, body: { model: 'nowhere', messages: [{ role: 'user', content: 'hi' }] } });
    assertError(response, 502, 'upstream_unreachable');
  });

  it('the upstream key never appears in the server log', async () => {
    const logs = await ctx.server.request('GET', '/v1/cluster/logs?lines=1000', { token: ctx.admin.accessToken });
    assert.equal(logs.status, 200);
    assert.ok(logs.body.lines.some((l: { message: string }) => l.message.includes('model remote launched')), logs.text.slice(0, 500));
    assert.ok(!logs.text.includes('upstream-key-0123456789'));
  });
});
