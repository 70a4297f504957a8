/**
 * `svc chat`, the real binary against a real server: a built-in model, and an upstream model served
 * by a fake OpenAI-compatible server that records what it receives (so the tests see that the answer
 * was asked for as a stream, and that a conversation sends its history).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createKey, startFakeUpstream, useServerWithAdmin, type FakeUpstream } from '@svc/server/testing';
import { jsonOf, runInPty, runTool, tools } from '../testing/run-tool.js';

interface ReceivedChat {
  stream?: boolean;
  messages: { role: string; content: string }[];
  max_tokens?: number;
}

describe('svc chat', () => {
  const handle = useServerWithAdmin();
  let home: string;
  let key: string;
  let upstream: FakeUpstream;
  const env = () => ({ SVC_HOME: home, SVC_ENDPOINT: handle.server.baseUrl, SVC_API_KEY: key });
  const svc = (args: string[], input?: string) => runTool(tools.svc, args, { env: env(), ...(input === undefined ? {} : { input }) });
  const lastChat = () => upstream.received.filter((request) => request.path.endsWith('/chat/completions')).at(-1)?.body as ReceivedChat | undefined;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-cli-chat-'));
    upstream = await startFakeUpstream({ record: true });
    key = (await createKey(handle.server, handle.admin.accessToken, { name: 'chat' })).key;
    for (const body of [
      { model_uid: 'my-echo', model_name: 'echo' },
      { model_uid: 'up', model_name: 'llama3', upstream_base_url: upstream.baseUrl },
    ]) {
      const launched = await handle.server.request('POST', '/v1/models', { token: key, body });
      assert.equal(launched.status, 200, JSON.stringify(launched.body));
    }
  });
  afterAll(async () => {
    await upstream.close();
    await rm(home, { recursive: true, force: true });
  });

  it('sends the argument and streams the answer to stdout', async () => {
    const result = await svc(['chat', 'up', 'Hi there', '--max-tokens', '20']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'Hello from upstream\n');
    const sent = lastChat();
    assert.equal(sent?.stream, true, 'asked for a stream');
    assert.equal(sent?.max_tokens, 20);
    assert.deepEqual(sent?.messages, [{ role: 'user', content: 'Hi there' }]);
  });

  it('reads the message from stdin when it is piped, after the --system message', async () => {
    const echoed = await svc(['chat', 'my-echo'], 'a question\nover two lines\n');
    assert.equal(echoed.code, 0, echoed.stderr);
    assert.equal(echoed.stdout, 'a question\nover two lines\n', 'the echo model answers with the message');
    const result = await svc(['chat', 'up', '--system', 'be brief'], 'piped question\n');
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(lastChat()?.messages, [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'piped question' },
    ]);
  });

  it('--json asks for one answer and prints the completion object', async () => {
    const completion = jsonOf<{ object: string; choices: { message: { content: string } }[] }>(await svc(['chat', 'my-echo', 'in JSON', '--json']));
    assert.equal(completion.object, 'chat.completion');
    assert.equal(completion.choices[0]?.message.content, 'in JSON');
  });

  it('nothing to send is a usage error (exit 1); an unknown model exits 4 with one line', async () => {
    const empty = await svc(['chat', 'my-echo'], '');
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /^svc: nothing to send: /);
    const unknown = await svc(['chat', 'no-such-model', 'hello']);
    assert.equal(unknown.code, 4);
    assert.equal(unknown.stderr.split('\n').length, 2, unknown.stderr);
    assert.match(unknown.stderr, /no-such-model/);
  });

  it('a key without models:read is refused with the permission named (exit 3)', async () => {
    const narrowed = (await createKey(handle.server, handle.admin.accessToken, { name: 'list only', permissions: ['models:list'] })).key;
    const result = await runTool(tools.svc, ['chat', 'my-echo', 'hello', '-ak', narrowed], { env: { SVC_HOME: home, SVC_ENDPOINT: handle.server.baseUrl } });
    assert.equal(result.code, 3);
    assert.equal(result.stderr, 'svc: forbidden: Missing permission: models:read\n');
  });

  it('at a terminal: a conversation at a prompt that sends its history, until Ctrl-D', async () => {
    const result = await runInPty(tools.svc, ['chat', 'up'], {
      env: env(),
      answers: [
        ['> ', 'first question\r'],
        ['upstream\\r?\\n> ', 'second question\r'],
        ['upstream\\r?\\n> ', '\u0004'],
      ],
    });
    assert.equal(result.code, 0, result.output);
    assert.equal(result.answered, 3, result.output);
    assert.equal(result.output.match(/Hello from upstream/g)?.length, 2, result.output);
    assert.deepEqual(lastChat()?.messages, [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'Hello from upstream' },
      { role: 'user', content: 'second question' },
    ]);
  });
});
