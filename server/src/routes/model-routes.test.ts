import assert from 'node:assert/strict';
import { beforeAll, describe, it } from 'vitest';
import { assertError, contractClient, createKey, createUser, setupAdmin, startServerProcess, useServer, useServerWithAdmin, withTempHome, type LoggedInUser } from '../testing/index.js';

describe('model routes: launch, list, get, stop', () => {
  const ctx = useServerWithAdmin();
  let operator: LoggedInUser;
  beforeAll(async () => {
    operator = await createUser(ctx.server, ctx.admin.accessToken, ['models:list', 'models:write', 'models:read', 'keys:create']);
  });

  it('launches a built-in echo model (200) under its name by default, and lists and gets it', async () => {
    const launched = await ctx.server.request('POST', '/v1/models', { token: operator.accessToken, body: { model_name: 'echo', model_engine: 'builtin' } });
    assert.equal(launched.status, 200, launched.text);
    assert.equal(launched.body.id, 'echo');
    assert.equal(launched.body.model_uid, 'echo');
    assert.equal(launched.body.model_type, 'LLM');
    assert.deepEqual(launched.body.model_ability, ['chat', 'generate']);
    assert.equal(launched.body.upstream, null);
    const list = await ctx.server.request('GET', '/v1/models', { token: operator.accessToken });
    assert.equal(list.body.object, 'list');
    assert.ok(list.body.data.some((m: { id: string }) => m.id === 'echo'));
    const one = await ctx.server.request('GET', '/v1/models/echo', { token: operator.accessToken });
    assert.equal(one.status, 200);
    assert.equal(one.body.model_name, 'echo');
  });

  it('refuses a second model with the same uid (409 model_uid_taken)', async () => {
    await ctx.server.request('POST', '/v1/models', { token: operator.accessToken, body: { model_uid: 'twice', model_name: 'echo' } });
    const again = await ctx.server.request('POST', '/v1/models', { token: operator.accessToken, body: { model_uid: 'twice', model_name: 'echo' } });
    assertError(again, 409, 'model_uid_taken');
  });

  it('answers 400 without model_name, 404 for an unknown family, 400 for upstream fields on the builtin engine', async () => {
    assertError(await ctx.server.request('POST', '/v1/models', { token: operator.accessToken, body: { model_uid: 'x' } }), 400, 'invalid_request');
    assertError(await ctx.server.request('POST', '/v1/models', { token: operator.accessToken, body: { model_name: 'no-such-family' } }), 404, 'model_family_not_found');
    assertError(
      await ctx.server.request('POST', '/v1/models', { token: operator.accessToken, body: { model_name: 'echo', model_engine: 'builtin', upstream_api_key: 'abc' } }),
      400,
      'invalid_request',
    );
    assertError(await ctx.server.request('POST', '/v1/models', { token: operator.accessToken, body: { model_name: 'x', model_engine: 'upstream' } }), 400, 'invalid_request');
    assertError(await ctx.server.request('POST', '/v1/models', { token: operator.accessToken, body: { model_name: 'echo', model_type: 'embedding' } }), 404, 'model_family_not_found');
  });

  it('stops a model (200, answering the model); it is then gone (404 model_not_found)', async () => {
    await ctx.server.request('POST', '/v1/models', { token: operator.accessToken, body: { model_uid: 'short-lived', model_name: 'echo' } });
    const stopped = await ctx.server.request('DELETE', '/v1/models/short-lived', { token: operator.accessToken });
    assert.equal(stopped.status, 200);
    assert.equal(stopped.body.model_uid, 'short-lived');
    assertError(await ctx.server.request('GET', '/v1/models/short-lived', { token: operator.accessToken }), 404, 'model_not_found');
    assertError(await ctx.server.request('DELETE', '/v1/models/short-lived', { token: operator.accessToken }), 404, 'model_not_found');
  });

  it('launches an upstream model (admin only), storing its key encrypted and never returning it', async () => {
    const byOperator = await ctx.server.request('POST', '/v1/models', {
      token: operator.accessToken,
      body: { model_uid: 'remote', model_name: 'llama3', upstream_base_url: 'http://127.0.0.1:9/v1/' },
    });
    assertError(byOperator, 403, 'permission_denied');
    const launched = await ctx.server.request('POST', '/v1/models', {
      token: ctx.admin.accessToken,
      body: { model_uid: 'remote', model_name: 'llama3', upstream_base_url: 'http://127.0.0.1:9/v1/', upstream_api_key: 'upstream-secret-4711', upstream_model: 'llama3:8b' },
    });
    assert.equal(launched.status, 200, launched.text);
    assert.equal(launched.body.model_engine, 'upstream');
    assert.deepEqual(launched.body.upstream, { base_url: 'http://127.0.0.1:9/v1', model: 'llama3:8b', has_api_key: true });
    assert.ok(!launched.text.includes('upstream-secret-4711'));
    const listed = await ctx.server.request('GET', '/v1/models', { token: operator.accessToken });
    assert.ok(!listed.text.includes('upstream-secret-4711'));
    assert.equal(listed.body.data.find((model: { id: string }) => model.id === 'remote').upstream, null, 'upstream details only for admins');
  });
});

describe('model routes: per-key model restrictions', () => {
  const ctx = useServerWithAdmin();
  let onlyChat: string;
  let onlyEmbeddings: string;
  let nothing: string;
  beforeAll(async () => {
    for (const body of [
      { model_uid: 'chat-a', model_name: 'echo' },
      { model_uid: 'chat-b', model_name: 'echo' },
      { model_uid: 'embedder', model_name: 'hash-embedding', model_type: 'embedding' },
    ]) {
      const response = await ctx.server.request('POST', '/v1/models', { token: ctx.admin.accessToken, body });
      assert.equal(response.status, 200, response.text);
    }
    onlyChat = (await createKey(ctx.server, ctx.admin.accessToken, { name: 'chat-a only', model_permissions: [{ permission_type: 'model_id', permission_value: 'chat-a' }] })).key;
    onlyEmbeddings = (await createKey(ctx.server, ctx.admin.accessToken, { name: 'embeddings', model_permissions: [{ permission_type: 'model_type', permission_value: 'embedding' }] })).key;
    const denied = await createKey(ctx.server, ctx.admin.accessToken, { name: 'no models' });
    const cleared = await ctx.server.request('PUT', `/v1/admin/keys/${denied.id}/permissions`, { token: ctx.admin.accessToken, body: { model_permissions: [] } });
    assert.equal(cleared.status, 200);
    nothing = denied.key;
  });

  it('GET /v1/models lists only the models the key may use', async () => {
    const ids = async (token: string) => (await ctx.server.request('GET', '/v1/models', { token })).body.data.map((m: { id: string }) => m.id).sort();
    assert.deepEqual(await ids(onlyChat), ['chat-a']);
    assert.deepEqual(await ids(onlyEmbeddings), ['embedder']);
    assert.deepEqual(await ids(nothing), []);
    assert.deepEqual(await ids(ctx.admin.accessToken), ['chat-a', 'chat-b', 'embedder']);
  });

  it('a denied model answers 403 naming it, on get, stop and inference', async () => {
    const get = await ctx.server.request('GET', '/v1/models/chat-b', { token: onlyChat });
    assertError(get, 403, 'model_access_denied');
    assert.equal(get.body.detail, 'API key does not have access to model: chat-b');
    assertError(await ctx.server.request('DELETE', '/v1/models/chat-b', { token: onlyChat }), 403, 'model_access_denied');
    const chat = await ctx.server.request('POST', '/v1/chat/completions', { token: onlyChat, body: { model: 'chat-b', messages: [{ role: 'user', content: 'hi' }] } });
    assertError(chat, 403, 'model_access_denied');
    assert.equal(chat.body.error.param, 'model');
    assertError(await ctx.server.request('POST', '/v1/embeddings', { token: onlyChat, body: { model: 'embedder', input: 'x' } }), 403, 'model_access_denied');
    assertError(await ctx.server.request('POST', '/v1/chat/completions', { token: nothing, body: { model: 'chat-a', messages: [{ role: 'user', content: 'hi' }] } }), 403, 'model_access_denied');
    const allowed = await ctx.server.request('POST', '/v1/chat/completions', { token: onlyChat, body: { model: 'chat-a', messages: [{ role: 'user', content: 'hi' }] } });
    assert.equal(allowed.status, 200, allowed.text);
    const embedded = await ctx.server.request('POST', '/v1/embeddings', { token: onlyEmbeddings, body: { model: 'embedder', input: 'x' } });
    assert.equal(embedded.status, 200, embedded.text);
  });

  it('a key restricted to model ids cannot probe which other uids exist: 403, not 404', async () => {
    const missing = await ctx.server.request('GET', '/v1/models/does-not-exist', { token: onlyChat });
    assertError(missing, 403, 'model_access_denied');
    assertError(await ctx.server.request('GET', '/v1/models/does-not-exist', { token: ctx.admin.accessToken }), 404, 'model_not_found');
  });

  it('a restricted key may launch only what it may use, and sees only the families it may use', async () => {
    assertError(await ctx.server.request('POST', '/v1/models', { token: onlyEmbeddings, body: { model_uid: 'sneaky', model_name: 'echo' } }), 403, 'model_access_denied');
    const launched = await ctx.server.request('POST', '/v1/models', { token: onlyEmbeddings, body: { model_uid: 'embedder-2', model_name: 'hash-embedding', model_type: 'embedding' } });
    assert.equal(launched.status, 200, launched.text);
    const llmFamilies = await ctx.server.request('GET', '/v1/model_registrations/LLM', { token: onlyEmbeddings });
    assert.deepEqual(llmFamilies.body, []);
    const embeddingFamilies = await ctx.server.request('GET', '/v1/model_registrations/embedding', { token: onlyEmbeddings });
    assert.deepEqual(embeddingFamilies.body.map((f: { model_name: string }) => f.model_name), ['hash-embedding']);
  });
});

describe('model registrations', () => {
  const ctx = useServerWithAdmin();
  let registrar: LoggedInUser;
  beforeAll(async () => {
    registrar = await createUser(ctx.server, ctx.admin.accessToken, ['models:list', 'models:register', 'models:write']);
  });

  it('lists the built-in families of a type, including one that needs the system message first', async () => {
    const response = await ctx.server.request('GET', '/v1/model_registrations/LLM', { token: registrar.accessToken });
    assert.equal(response.status, 200);
    const byName = new Map(response.body.map((f: { model_name: string }) => [f.model_name, f]));
    assert.equal((byName.get('echo') as { is_builtin: boolean }).is_builtin, true);
    assert.equal((byName.get('echo-system-first') as { requires_system_message_first: boolean }).requires_system_message_first, true);
  });

  it('registers a family given as an object or as a JSON string, launches it, and refuses a duplicate (409)', async () => {
    const asObject = await ctx.server.request('POST', '/v1/model_registrations/LLM', {
      token: registrar.accessToken,
      body: { model: { model_name: 'my-assistant', model_ability: ['chat'], requires_system_message_first: true }, persist: true },
    });
    assert.equal(asObject.status, 200, asObject.text);
    assert.equal(asObject.body.is_builtin, false);
    const asString = await ctx.server.request('POST', '/v1/model_registrations/embedding', {
      token: registrar.accessToken,
      body: { model: JSON.stringify({ model_name: 'my-embedder', dimensions: 8 }) },
    });
    assert.equal(asString.status, 200, asString.text);
    assert.equal(asString.body.dimensions, 8);
    assertError(await ctx.server.request('POST', '/v1/model_registrations/LLM', { token: registrar.accessToken, body: { model: { model_name: 'my-assistant' } } }), 409, 'model_family_exists');
    assertError(await ctx.server.request('POST', '/v1/model_registrations/LLM', { token: registrar.accessToken, body: { model: { model_name: 'echo' } } }), 409, 'model_family_exists');
    const launched = await ctx.server.request('POST', '/v1/models', { token: registrar.accessToken, body: { model_name: 'my-assistant' } });
    assert.equal(launched.status, 200, launched.text);
    assert.deepEqual(launched.body.model_ability, ['chat']);
  });

  it('refuses a bad definition string (400 naming model) and a type that differs from the path', async () => {
    const bad = await ctx.server.request('POST', '/v1/model_registrations/LLM', { token: registrar.accessToken, body: { model: '{"model_name": "../evil"}' } });
    assertError(bad, 400, 'invalid_request');
    assert.equal(bad.body.error.param, 'model');
    assertError(await ctx.server.request('POST', '/v1/model_registrations/LLM', { token: registrar.accessToken, body: { model: 'not json' } }), 400, 'invalid_request');
    assertError(
      await ctx.server.request('POST', '/v1/model_registrations/LLM', { token: registrar.accessToken, body: { model: { model_name: 'typed', model_type: 'embedding' } } }),
      400,
      'invalid_request',
    );
  });

  it('unregisters a family no model uses (200 {ok: true}); refuses built-ins (403) and families in use (409)', async () => {
    await ctx.server.request('POST', '/v1/model_registrations/LLM', { token: registrar.accessToken, body: { model: { model_name: 'busy' } } });
    await ctx.server.request('POST', '/v1/models', { token: registrar.accessToken, body: { model_name: 'busy' } });
    assertError(await ctx.server.request('DELETE', '/v1/model_registrations/LLM/busy', { token: registrar.accessToken }), 409, 'model_family_in_use');
    assert.equal((await ctx.server.request('DELETE', '/v1/models/busy', { token: registrar.accessToken })).status, 200);
    assert.equal((await ctx.server.request('DELETE', '/v1/model_registrations/LLM/busy', { token: registrar.accessToken })).status, 200);
    assertError(await ctx.server.request('DELETE', '/v1/model_registrations/LLM/busy', { token: registrar.accessToken }), 404, 'model_family_not_found');
    assertError(await ctx.server.request('DELETE', '/v1/model_registrations/LLM/echo', { token: registrar.accessToken }), 403, 'builtin_model_family');
  });
});

describe('models and families persist across a restart', () => {
  it('a launched model (with its upstream key) and a registered family come back after the svc-local process restarts', async () => {
    await withTempHome('svc-models-restart-', async (home) => {
      const firstProcess = await startServerProcess({ SVC_HOME: home });
      const first = contractClient(firstProcess.baseUrl);
      const admin = await setupAdmin(first);
      await first.request('POST', '/v1/model_registrations/LLM', { token: admin.accessToken, body: { model: { model_name: 'kept-family', requires_system_message_first: true } } });
      await first.request('POST', '/v1/models', { token: admin.accessToken, body: { model_uid: 'kept', model_name: 'kept-family' } });
      await first.request('POST', '/v1/models', { token: admin.accessToken, body: { model_uid: 'kept-remote', model_name: 'm', upstream_base_url: 'http://127.0.0.1:9/v1', upstream_api_key: 'k-123456' } });
      await firstProcess.stop();
      const secondProcess = await startServerProcess({ SVC_HOME: home });
      const second = contractClient(secondProcess.baseUrl);
      try {
        const models = await second.request('GET', '/v1/models', { token: admin.accessToken });
        assert.deepEqual(models.body.data.map((m: { id: string }) => m.id).sort(), ['kept', 'kept-remote']);
        const remote = models.body.data.find((m: { id: string }) => m.id === 'kept-remote');
        assert.equal(remote.upstream.has_api_key, true);
        const families = await second.request('GET', '/v1/model_registrations/LLM', { token: admin.accessToken });
        assert.ok(families.body.some((f: { model_name: string }) => f.model_name === 'kept-family'));
        const chat = await second.request('POST', '/v1/chat/completions', {
          token: admin.accessToken,
          body: { model: 'kept', messages: [{ role: 'user', content: 'a' }, { role: 'system', content: 'late' }] },
        });
        assertError(chat, 400, 'system_message_not_first');
      } finally {
        await secondProcess.stop();
      }
    });
  });
});

describe('model routes with authentication switched off (SVC_AUTH_ADVANCED=false)', () => {
  const ctx = useServer({ env: { SVC_AUTH_ADVANCED: 'false' } });

  it('launches, lists and chats without credentials', async () => {
    const launched = await ctx.server.request('POST', '/v1/models', { body: { model_uid: 'open', model_name: 'echo' } });
    assert.equal(launched.status, 200, launched.text);
    assert.deepEqual((await ctx.server.request('GET', '/v1/models')).body.data.map((m: { id: string }) => m.id), ['open']);
    const chat = await ctx.server.request('POST', '/v1/chat/completions', { body: { model: 'open', messages: [{ role: 'user', content: 'hi' }] } });
    assert.equal(chat.body.choices[0].message.content, 'hi');
  });
});
