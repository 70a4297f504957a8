/**
 * The model commands of the real `svc` binary in child processes against a real server (HTTP on
 * port 0, SQLite on disk), authenticated with API keys (`-ak`) and with a login session.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { adminCredentials, createKey, createUser, startFakeUpstream, useServerWithAdmin, type FakeUpstream } from '@svc/server/testing';
import { jsonOf, runTool, tools } from '../testing/run-tool.js';

interface ModelJson {
  model_uid: string;
  model_name: string;
  model_type: string;
  model_engine: string;
  upstream: { base_url: string; model: string; has_api_key: boolean } | null;
}

interface RegistrationJson {
  model_name: string;
  model_type: string;
  model_ability: string[];
  is_builtin: boolean;
  requires_system_message_first: boolean;
}

describe('svc model commands', () => {
  const handle = useServerWithAdmin();
  let home: string;
  let adminKey: string;
  // A wide terminal: these tests read whole table rows (fitting narrower ones: table-width.test.ts).
  const svc = (args: string[], input?: string) =>
    runTool(tools.svc, args, { env: { SVC_HOME: home, SVC_ENDPOINT: handle.server.baseUrl, COLUMNS: '250' }, ...(input === undefined ? {} : { input }) });
  /** Runs `svc`, expecting success. */
  const ok = async (args: string[], input?: string) => {
    const result = await svc(args, input);
    assert.equal(result.code, 0, `svc ${args.join(' ')}: ${result.stderr}`);
    return result;
  };
  const definitionFile = async (name: string, content: unknown) => {
    const path = join(home, name);
    await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-cli-models-'));
    adminKey = (await createKey(handle.server, handle.admin.accessToken, { name: 'admin cli' })).key;
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  it('launch -ak, list (table and JSON), terminate by argument: the spec\'s example', async () => {
    const launched = await ok(['launch', '--model-name', 'echo', '-ak', adminKey]);
    assert.equal(launched.stdout, 'Launched model echo (echo, LLM, builtin).\n');
    const table = await ok(['list', '-ak', adminKey]);
    assert.match(table.stdout, /UID.*NAME.*TYPE.*ENGINE/);
    assert.match(table.stdout, /echo .*LLM .*builtin .*chat, generate/);
    const listed = jsonOf<ModelJson[]>(await ok(['list', '--json', '-ak', adminKey]));
    assert.deepEqual(
      listed.map((m) => [m.model_uid, m.model_name, m.model_engine]),
      [['echo', 'echo', 'builtin']],
    );
    const chat = await handle.server.request('POST', '/v1/chat/completions', { token: adminKey, body: { model: 'echo', messages: [{ role: 'user', content: 'hi there' }] } });
    assert.equal(chat.status, 200, 'the launched model serves');
    const terminated = await ok(['terminate', 'echo', '-ak', adminKey]);
    assert.equal(terminated.stdout, 'Terminated model echo.\n');
    assert.equal((await ok(['list', '-ak', adminKey])).stdout, '(none)\n');
    const again = await svc(['terminate', '--model-uid', 'echo', '-ak', adminKey]);
    assert.equal(again.code, 4);
    assert.match(again.stderr, /^svc: .*echo.*\n$/);
  });

  it('launch with a login session: uid, type and a taken uid (exit 4)', async () => {
    await ok(['login', '--username', adminCredentials.username, '--password', adminCredentials.password]);
    const model = jsonOf<ModelJson>(await ok(['launch', '--model-name', 'hash-embedding', '--model-uid', 'vectors', '--model-type', 'embedding', '--json']));
    assert.deepEqual([model.model_uid, model.model_name, model.model_type, model.upstream], ['vectors', 'hash-embedding', 'embedding', null]);
    const taken = await svc(['launch', '--model-name', 'echo', '--model-uid', 'vectors']);
    assert.equal(taken.code, 4);
    assert.equal(taken.stderr.split('\n').length, 2, 'one line');
    await ok(['terminate', '--model-uid', 'vectors']);
    await ok(['logout']);
  });

  it("launch without --model-type takes the family's type; an unknown family's hint names svc registrations (exit 4)", async () => {
    const vectors = jsonOf<ModelJson>(await ok(['launch', '--model-name', 'hash-embedding', '--json', '-ak', adminKey]));
    assert.deepEqual([vectors.model_uid, vectors.model_type, vectors.model_engine], ['hash-embedding', 'embedding', 'builtin']);
    const embedded = await handle.server.request('POST', '/v1/embeddings', { token: adminKey, body: { model: 'hash-embedding', input: 'hello' } });
    assert.equal(embedded.status, 200, 'the launched model embeds');
    await ok(['terminate', 'hash-embedding', '-ak', adminKey]);
    const unknown = await svc(['launch', '--model-name', 'no-such-family', '-ak', adminKey]);
    assert.equal(unknown.code, 4);
    assert.equal(unknown.stderr, 'svc: no model family named no-such-family; list them with: svc registrations --model-type LLM\n');
    const wrongType = await svc(['launch', '--model-name', 'echo', '--model-type', 'embedding', '-ak', adminKey]);
    assert.equal(wrongType.code, 4);
    assert.equal(wrongType.stderr, 'svc: no embedding model family named echo; list them with: svc registrations --model-type embedding\n');
  });

  describe('upstream models', () => {
    let upstream: FakeUpstream;
    beforeAll(async () => {
      upstream = await startFakeUpstream({ record: true });
    });
    afterAll(() => upstream.close());

    it('launch --upstream-* stores the upstream key without ever printing it; - reads it from stdin', async () => {
      const secret = 'upstream-secret-token-123456';
      const launched = await ok(
        ['launch', '--model-name', 'llama3', '--model-uid', 'llama', '--upstream-base-url', upstream.baseUrl, '--upstream-api-key', secret, '--upstream-model', 'llama3:8b', '--json', '-ak', adminKey],
      );
      assert.ok(!launched.stdout.includes(secret) && !launched.stderr.includes(secret));
      const model = jsonOf<ModelJson>(launched);
      assert.equal(model.model_engine, 'upstream');
      assert.deepEqual(model.upstream, { base_url: upstream.baseUrl, model: 'llama3:8b', has_api_key: true });
      const table = await ok(['list', '-ak', adminKey]);
      assert.ok(table.stdout.includes(upstream.baseUrl) && !table.stdout.includes(secret));
      await ok(['terminate', 'llama', '-ak', adminKey]);

      const piped = jsonOf<ModelJson>(
        await ok(['launch', '--model-name', 'llama3', '--model-uid', 'llama-piped', '--upstream-base-url', upstream.baseUrl, '--upstream-api-key', '-', '--json', '-ak', adminKey], `${secret}\n`),
      );
      assert.equal(piped.upstream?.has_api_key, true);
      const chat = await handle.server.request('POST', '/v1/chat/completions', { token: adminKey, body: { model: 'llama-piped', messages: [{ role: 'user', content: 'hi' }] } });
      assert.equal(chat.status, 200);
      assert.equal(upstream.received.at(-1)?.authorization, `Bearer ${secret}`, 'the key read from stdin reaches the upstream');
      await ok(['terminate', 'llama-piped', '-ak', adminKey]);
    });

    it('a base URL the contract refuses is a usage error naming the field (exit 1)', async () => {
      const result = await svc(['launch', '--model-name', 'llama3', '--upstream-base-url', 'ftp://example', '-ak', adminKey]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^svc: .*upstream_base_url.*\n$/);
    });
  });

  describe('register, registrations, unregister', () => {
    it('registers a family from a JSON file, launches it, and unregisters it once terminated', async () => {
      const file = await definitionFile('assistant.json', { model_name: 'my-assistant', model_ability: ['chat'], requires_system_message_first: true, model_description: 'team assistant' });
      const registered = await ok(['register', '--model-type', 'LLM', '--file', file, '--persist', '-ak', adminKey]);
      assert.equal(registered.stdout, 'Registered model family my-assistant (LLM: chat).\n');
      const families = jsonOf<RegistrationJson[]>(await ok(['registrations', '--model-type', 'LLM', '--json', '-ak', adminKey]));
      const mine = families.find((f) => f.model_name === 'my-assistant');
      assert.deepEqual(mine && [mine.is_builtin, mine.requires_system_message_first, mine.model_ability], [false, true, ['chat']]);
      assert.ok(families.some((f) => f.model_name === 'echo' && f.is_builtin));
      const table = await ok(['registrations', '-ak', adminKey]);
      assert.match(table.stdout, /my-assistant .*LLM .*chat .*no .*yes .*team assistant/);

      await ok(['launch', '--model-name', 'my-assistant', '-ak', adminKey]);
      const inUse = await svc(['unregister', '--model-type', 'LLM', '--model-name', 'my-assistant', '-ak', adminKey]);
      assert.equal(inUse.code, 4, inUse.stderr);
      await ok(['terminate', 'my-assistant', '-ak', adminKey]);
      const unregistered = await ok(['unregister', '--model-type', 'LLM', '--model-name', 'my-assistant', '-ak', adminKey]);
      assert.equal(unregistered.stdout, 'Unregistered model family my-assistant (LLM).\n');
      const gone = await svc(['unregister', '--model-name', 'my-assistant', '-ak', adminKey]);
      assert.equal(gone.code, 4);
      const builtin = await svc(['unregister', '--model-name', 'echo', '-ak', adminKey]);
      assert.equal(builtin.code, 3);
      assert.match(builtin.stderr, /^svc: forbidden: .*\n$/);
    });

    it('refuses a missing file, a file that is not JSON or not an object before sending anything (exit 1)', async () => {
      const missing = await svc(['register', '--file', join(home, 'nope.json'), '-ak', adminKey]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /^svc: cannot read --file .*nope\.json: ENOENT\n$/);
      const broken = await svc(['register', '--file', await definitionFile('broken.json', '{"model_name": '), '-ak', adminKey]);
      assert.equal(broken.code, 1);
      assert.match(broken.stderr, /is not valid JSON/);
      const list = await svc(['register', '--file', await definitionFile('list.json', [{ model_name: 'x' }]), '-ak', adminKey]);
      assert.equal(list.code, 1);
      assert.match(list.stderr, /must hold one JSON object/);
    });

    it('a definition the server refuses is exit 1 with its message; a type mismatch too', async () => {
      const bad = await svc(['register', '--file', await definitionFile('bad.json', { model_name: 'flyer', model_ability: ['fly'] }), '-ak', adminKey]);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /^svc: .*\n$/);
      const mismatch = await svc(['register', '--model-type', 'embedding', '--file', await definitionFile('llm.json', { model_name: 'typed', model_type: 'LLM' }), '-ak', adminKey]);
      assert.equal(mismatch.code, 1, mismatch.stderr);
      const families = jsonOf<RegistrationJson[]>(await ok(['registrations', '--model-type', 'embedding', '--json', '-ak', adminKey]));
      assert.ok(!families.some((f) => f.model_name === 'typed' || f.model_name === 'flyer'));
    });
  });

  describe('permissions', () => {
    it('a key restricted by model_permissions: 403 names the model (exit 3); list shows only allowed models', async () => {
      await ok(['launch', '--model-name', 'echo', '--model-uid', 'open-chat', '-ak', adminKey]);
      await ok(['launch', '--model-name', 'echo', '--model-uid', 'secret-chat', '-ak', adminKey]);
      const restricted = (
        await createKey(handle.server, handle.admin.accessToken, { name: 'open-chat only', model_permissions: [{ permission_type: 'model_id', permission_value: 'open-chat' }] })
      ).key;
      const listed = jsonOf<ModelJson[]>(await ok(['list', '--json', '-ak', restricted]));
      assert.deepEqual(listed.map((m) => m.model_uid), ['open-chat']);
      const stop = await svc(['terminate', 'secret-chat', '-ak', restricted]);
      assert.equal(stop.code, 3);
      assert.equal(stop.stderr, 'svc: forbidden: API key does not have access to model: secret-chat\n');
      const launch = await svc(['launch', '--model-name', 'echo', '--model-uid', 'another-chat', `-ak=${restricted}`]);
      assert.equal(launch.code, 3);
      assert.equal(launch.stderr, 'svc: forbidden: API key does not have access to model: another-chat\n');
      await ok(['terminate', 'open-chat', '-ak', restricted]);
      await ok(['terminate', 'secret-chat', '-ak', adminKey]);
    });

    it('a key without models:write or models:register: 403 names the permission (exit 3)', async () => {
      const reader = await createUser(handle.server, handle.admin.accessToken, ['models:list', 'models:read', 'keys:create']);
      const key = (await createKey(handle.server, reader.accessToken, { name: 'reader' })).key;
      assert.equal((await ok(['list', '-ak', key])).code, 0);
      const launch = await svc(['launch', '--model-name', 'echo', '-ak', key]);
      assert.equal(launch.code, 3);
      assert.equal(launch.stderr, 'svc: forbidden: Missing permission: models:write\n');
      const terminate = await svc(['terminate', 'echo', '-ak', key]);
      assert.equal(terminate.stderr, 'svc: forbidden: Missing permission: models:write\n');
      const register = await svc(['register', '--file', await definitionFile('reader.json', { model_name: 'readers-own' }), '-ak', key]);
      assert.equal(register.code, 3);
      assert.equal(register.stderr, 'svc: forbidden: Missing permission: models:register\n');
    });
  });

  describe('usage', () => {
    it('refuses an unknown type or engine, a missing --model-name and a terminate without uid (exit 1, nothing sent)', async () => {
      const type = await svc(['launch', '--model-name', 'echo', '--model-type', 'speech', '-ak', adminKey]);
      assert.equal(type.code, 1);
      assert.match(type.stderr, /speech.*LLM, embedding/);
      const engine = await svc(['launch', '--model-name', 'echo', '--model-engine', 'vllm', '-ak', adminKey]);
      assert.equal(engine.code, 1);
      const name = await svc(['launch', '-ak', adminKey]);
      assert.equal(name.code, 1);
      assert.match(name.stderr, /--model-name/);
      const none = await svc(['terminate', '-ak', adminKey]);
      assert.equal(none.code, 1);
      assert.match(none.stderr, /^svc: which model\?/);
      const two = await svc(['terminate', 'a', '--model-uid', 'b', '-ak', adminKey]);
      assert.equal(two.code, 1);
      assert.match(two.stderr, /two different model uids/);
      assert.equal((await ok(['list', '--json', '-ak', adminKey])).stdout, '[]\n');
    });
  });
});
