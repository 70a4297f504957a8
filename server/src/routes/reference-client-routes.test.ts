/**
 * The requests the reference server's clients send (its Python client, CLI and web UI), as they
 * send them, and the answers they parse: the status they require (exactly 200 on the model write
 * routes) and the fields they read. Bodies are written the way Python's `json.dumps` writes them
 * (`", "` and `": "` separators, every field with its null) and sent byte for byte.
 */
import assert from 'node:assert/strict';
import { beforeAll, describe, it } from 'vitest';
import { assertError, createKey, createUser, useServerWithAdmin, type LoggedInUser } from '../testing/index.js';

/** What `json.dumps` makes of a dict (insertion order, `", "` / `": "`, non-ASCII escaped). */
function pythonJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`).join(', ')}}`;
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return JSON.stringify(value);
}

/** The body of `Client.launch_model(model_name, model_type, ...)` with the client's defaults (19 keys). */
function launchBody(fields: { model_name: string; model_type?: string; model_engine?: string | null; model_uid?: string | null }, extra: Record<string, unknown> = {}): string {
  return pythonJson({
    model_uid: fields.model_uid ?? null,
    model_name: fields.model_name,
    model_engine: fields.model_engine ?? null,
    peft_model_config: null,
    model_type: fields.model_type ?? 'LLM',
    model_size_in_billions: null,
    model_format: null,
    quantization: null,
    replica: 1,
    n_worker: 1,
    n_gpu: 'auto',
    request_limits: null,
    worker_ip: null,
    gpu_idx: null,
    model_path: null,
    enable_thinking: null,
    enable_virtual_env: null,
    virtual_env_packages: null,
    envs: null,
    ...extra,
  });
}

/** The headers `requests` sends (GET and DELETE carry no body and no Content-Type). */
const pythonHeaders = (token: string) => ({
  'user-agent': 'python-requests/2.32.3',
  accept: '*/*',
  'accept-encoding': 'gzip, deflate',
  authorization: `Bearer ${token}`,
});

/** The same, for a JSON body. */
const pythonJsonHeaders = (token: string) => ({ ...pythonHeaders(token), 'content-type': 'application/json' });

describe('model routes as the reference Python client and CLI call them', () => {
  const ctx = useServerWithAdmin();
  let operator: LoggedInUser;
  let key: string;
  beforeAll(async () => {
    operator = await createUser(ctx.server, ctx.admin.accessToken, ['models:list', 'models:write', 'models:read', 'models:register', 'keys:create']);
    key = (await createKey(ctx.server, operator.accessToken, { name: 'python' })).key;
  });

  it('launch_model: nulls count as absent; 200 with model_uid (the family name when free)', async () => {
    const response = await ctx.server.request('POST', '/v1/models', { headers: pythonJsonHeaders(key), rawBody: launchBody({ model_name: 'hash-embedding', model_type: 'embedding' }) });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.model_uid, 'hash-embedding');
    assert.equal(response.headers.get('warning'), null);
  });

  it('launch_model without model_uid while the family name is taken: a generated uid, named in the answer', async () => {
    const first = await ctx.server.request('POST', '/v1/models', { headers: pythonJsonHeaders(key), rawBody: launchBody({ model_name: 'echo', model_engine: 'builtin' }) });
    assert.equal(first.status, 200, first.text);
    const second = await ctx.server.request('POST', '/v1/models', { headers: pythonJsonHeaders(key), rawBody: launchBody({ model_name: 'echo', model_engine: 'builtin' }) });
    assert.equal(second.status, 200, second.text);
    assert.match(second.body.model_uid, /^echo-[0-9a-z]{8}$/);
    assert.notEqual(second.body.model_uid, first.body.model_uid);
    const described = await ctx.server.request('GET', `/v1/models/${second.body.model_uid}`, { headers: pythonHeaders(key) });
    assert.equal(described.status, 200);
    assert.equal(described.body.model_type, 'LLM');
    assert.ok(described.body.model_ability.includes('chat'));
  });

  it('xinference launch -en vllm (CLI: ?wait_ready=False, trust_remote_code): falls back to builtin with a Warning header', async () => {
    const response = await ctx.server.request('POST', '/v1/models?wait_ready=False', {
      headers: pythonJsonHeaders(key),
      rawBody: launchBody({ model_name: 'echo-system-first', model_engine: 'vllm', model_uid: 'cli-model' }, { trust_remote_code: true }),
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.model_uid, 'cli-model');
    assert.equal(response.body.model_engine, 'builtin');
    assert.match(response.headers.get('warning') ?? '', /^299 svc ".*vllm.*builtin.*"$/);
  });

  it('xinference launch then polls GET /v1/models/instances and /v1/models/{uid}/progress until READY', async () => {
    const instances = await ctx.server.request('GET', '/v1/models/instances?model_name=echo-system-first&model_uid=cli-model', { headers: pythonHeaders(key) });
    assert.equal(instances.status, 200, instances.text);
    assert.deepEqual(instances.body, [{ model_uid: 'cli-model', model_name: 'echo-system-first', model_type: 'LLM', status: 'READY' }]);
    const all = await ctx.server.request('GET', '/v1/models/instances', { headers: pythonHeaders(key) });
    assert.ok(all.body.length >= 2);
    const progress = await ctx.server.request('GET', '/v1/models/cli-model/progress', { headers: pythonHeaders(key) });
    assert.deepEqual(progress.body, { progress: 1 });
    assertError(await ctx.server.request('GET', '/v1/models/gone/progress', { headers: pythonHeaders(key) }), 404, 'model_not_found');
    assertError(await ctx.server.request('POST', '/v1/models', { headers: pythonJsonHeaders(key), rawBody: launchBody({ model_name: 'echo', model_uid: 'instances' }) }), 400, 'invalid_request');
  });

  it('an explicit model_uid that is taken still answers 409 model_uid_taken', async () => {
    await ctx.server.request('POST', '/v1/models', { headers: pythonJsonHeaders(key), rawBody: launchBody({ model_name: 'echo', model_uid: 'taken' }) });
    const again = await ctx.server.request('POST', '/v1/models', { headers: pythonJsonHeaders(key), rawBody: launchBody({ model_name: 'echo', model_uid: 'taken' }) });
    assertError(again, 409, 'model_uid_taken');
  });

  it('still refuses what protects users: a null model_name, an engine name with a quote', async () => {
    const noName = pythonJson({ model_uid: null, model_name: null });
    assertError(await ctx.server.request('POST', '/v1/models', { headers: pythonJsonHeaders(key), rawBody: noName }), 400, 'invalid_request');
    assertError(
      await ctx.server.request('POST', '/v1/models', { headers: pythonJsonHeaders(key), rawBody: launchBody({ model_name: 'echo', model_engine: 'v"llm' }) }),
      400,
      'invalid_request',
    );
  });

  it('list_models and xinference list: the fields read without defaults are present', async () => {
    const response = await ctx.server.request('GET', '/v1/models', { headers: pythonHeaders(key) });
    assert.equal(response.status, 200);
    for (const model of response.body.data) {
      assert.equal(typeof model.id, 'string');
      for (const field of ['model_type', 'model_name', 'model_format', 'model_size_in_billions', 'quantization', 'dimensions']) assert.ok(field in model, field);
    }
    const embedding = response.body.data.find((m: { id: string }) => m.id === 'hash-embedding');
    assert.equal(embedding.dimensions, 64);
  });

  it('terminate_model: DELETE answers exactly 200', async () => {
    await ctx.server.request('POST', '/v1/models', { headers: pythonJsonHeaders(key), rawBody: launchBody({ model_name: 'echo', model_uid: 'to-stop' }) });
    const response = await ctx.server.request('DELETE', '/v1/models/to-stop', { headers: pythonHeaders(key) });
    assert.equal(response.status, 200, response.text);
  });

  it('register_model (definition as a JSON string), get_model_registration, list with ?detailed=false, unregister_model: 200 with JSON', async () => {
    const definition = pythonJson({ model_name: 'my-llm', model_lang: ['en', 'zh'], model_ability: ['chat'], model_family: 'custom', context_length: 4096 });
    const registered = await ctx.server.request('POST', '/v1/model_registrations/LLM', {
      headers: pythonJsonHeaders(key),
      rawBody: pythonJson({ model: definition, worker_ip: null, persist: false }),
    });
    assert.equal(registered.status, 200, registered.text);
    assert.doesNotThrow(() => JSON.parse(registered.text));

    const listed = await ctx.server.request('GET', '/v1/model_registrations/LLM?detailed=false', { headers: pythonHeaders(key) });
    assert.equal(listed.status, 200);
    for (const item of listed.body) {
      assert.equal(typeof item.model_name, 'string');
      assert.equal(typeof item.is_builtin, 'boolean');
      const one = await ctx.server.request('GET', `/v1/model_registrations/LLM/${item.model_name}`, { headers: pythonHeaders(key) });
      assert.equal(one.status, 200, one.text);
      for (const field of ['model_name', 'model_lang', 'model_ability']) assert.ok(field in one.body, `${item.model_name}: ${field}`);
    }
    const mine = await ctx.server.request('GET', '/v1/model_registrations/LLM/my-llm', { headers: pythonHeaders(key) });
    assert.deepEqual(mine.body.model_lang, ['en', 'zh']);
    assert.equal(mine.body.model_family, 'custom');
    assert.equal(mine.body.context_length, 4096);
    assert.equal(mine.body.is_builtin, false);

    const embedding = await ctx.server.request('GET', '/v1/model_registrations/embedding/hash-embedding', { headers: pythonHeaders(key) });
    assert.equal(embedding.status, 200);
    assert.deepEqual(embedding.body.language, ['en']);
    assert.equal(embedding.body.dimensions, 64);

    assertError(await ctx.server.request('GET', '/v1/model_registrations/LLM/no-such-family', { headers: pythonHeaders(key) }), 404, 'model_family_not_found');

    const unregistered = await ctx.server.request('DELETE', '/v1/model_registrations/LLM/my-llm', { headers: pythonHeaders(key) });
    assert.equal(unregistered.status, 200, unregistered.text);
    assert.deepEqual(JSON.parse(unregistered.text), { ok: true });
  });

  it('a key restricted to other models cannot read a family it may not use (403)', async () => {
    const restricted = await createKey(ctx.server, ctx.admin.accessToken, {
      name: 'only embeddings',
      owner: operator.id,
      model_permissions: [{ permission_type: 'model_type', permission_value: 'embedding' }],
    });
    assertError(await ctx.server.request('GET', '/v1/model_registrations/LLM/echo', { token: restricted.key }), 403, 'model_access_denied');
  });
});

describe('cluster routes the reference web UI reads', () => {
  const ctx = useServerWithAdmin();

  it('GET /v1/cluster/ui_config answers without credentials, with auth_advanced true', async () => {
    const response = await ctx.server.request('GET', '/v1/cluster/ui_config');
    assert.equal(response.status, 200);
    assert.equal(response.body.auth_advanced, true);
    assert.equal(response.body.oidc_enabled, false);
    assert.equal(response.body.es_enabled, false);
  });

  it('GET /v1/cluster/version answers the version the UI shows', async () => {
    const response = await ctx.server.request('GET', '/v1/cluster/version', { token: ctx.admin.accessToken });
    assert.equal(response.status, 200);
    assert.match(response.body.version, /^\d+\.\d+\.\d+$/);
    assert.equal(response.body['full-revisionid'], null);
  });
});

describe('API key requests of the reference web UI', () => {
  const ctx = useServerWithAdmin();
  const everyModel = [{ permission_type: 'all', permission_value: null }];

  /** `JSON.stringify` of the UI, with its Content-Type and bearer token. */
  const ui = (method: string, path: string, body?: unknown) =>
    ctx.server.request(method, path, {
      token: ctx.admin.accessToken,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, rawBody: JSON.stringify(body) }),
    });

  it('creates a key without a name (the name is the key prefix) and reads result.key', async () => {
    const created = await ui('POST', '/v1/admin/keys', { model_permissions: everyModel });
    assert.equal(created.status, 201, created.text);
    assert.equal(typeof created.body.key, 'string');
    assert.equal(created.body.name, created.body.key_prefix);
  });

  it('reads expires_at without an offset, or as a bare date, as UTC', async () => {
    const local = await ui('POST', '/v1/admin/keys', { name: 'eod', expires_at: '2099-12-31T23:59:59', model_permissions: everyModel });
    assert.equal(local.status, 201, local.text);
    assert.equal(local.body.expires_at, '2099-12-31T23:59:59.000Z');
    const date = await ui('POST', '/v1/admin/keys', { name: 'date', expires_at: '2099-12-31' });
    assert.equal(date.body.expires_at, '2099-12-31T00:00:00.000Z');
    const offset = await ui('POST', '/v1/admin/keys', { name: 'offset', expires_at: '2099-12-31T23:59:59+02:00' });
    assert.equal(offset.body.expires_at, '2099-12-31T21:59:59.000Z');
    for (const bad of ['2099-02-30', '2099-12-31T24:00:00', '2099-12-31T23:59:59+25:00', '31.12.2099']) {
      assertError(await ui('POST', '/v1/admin/keys', { name: 'bad', expires_at: bad }), 400, 'invalid_request');
    }
  });

  it('edit: name null leaves the name, description and expires_at null clear them', async () => {
    const created = await ui('POST', '/v1/admin/keys', { name: 'kept', description: 'd', expires_at: '2099-01-01' });
    const edited = await ui('PUT', `/v1/admin/keys/${created.body.id}`, { name: null, description: null, expires_at: null, model_permissions: everyModel });
    assert.equal(edited.status, 200, edited.text);
    assert.equal(edited.body.name, 'kept');
    assert.equal(edited.body.description, null);
    assert.equal(edited.body.expires_at, null);
  });

  it('enabled as 0 / 1 (and booleans); 2 is refused', async () => {
    const created = await ui('POST', '/v1/admin/keys', { name: 'toggle' });
    assert.equal((await ui('PUT', `/v1/admin/keys/${created.body.id}`, { enabled: 0 })).body.enabled, false);
    assert.equal((await ui('PUT', `/v1/admin/keys/${created.body.id}`, { enabled: 1 })).body.enabled, true);
    assert.equal((await ui('PUT', `/v1/admin/keys/${created.body.id}`, { enabled: false })).body.enabled, false);
    assertError(await ui('PUT', `/v1/admin/keys/${created.body.id}`, { enabled: 2 }), 400, 'invalid_request');
  });

  it('users: enabled as 0 / 1 too', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['models:list']);
    assert.equal((await ui('PUT', `/v1/admin/users/${user.id}`, { enabled: 0 })).body.enabled, false);
    assert.equal((await ui('PUT', `/v1/admin/users/${user.id}`, { enabled: 1 })).body.enabled, true);
    assertError(await ui('PUT', `/v1/admin/users/${user.id}`, { enabled: '1' }), 400, 'invalid_request');
  });

  it('still refuses unknown fields (the newest UI\'s token budget, which svc does not enforce)', async () => {
    const body = { model_permissions: everyModel, token_renewal: 'none', request_rate_limit_enabled: false };
    assertError(await ui('POST', '/v1/admin/keys', body), 400, 'invalid_request');
  });
});

describe('per-key brute-force thresholds and the key\'s bans', () => {
  const ctx = useServerWithAdmin();
  const admin = (method: string, path: string, body?: unknown) => ctx.server.request(method, path, { token: ctx.admin.accessToken, ...(body === undefined ? {} : { body }) });

  it('stores and shows the thresholds; null or 0 means the global setting', async () => {
    const created = await admin('POST', '/v1/admin/keys', { name: 'limited', rate_limit_max_failures: 3, rate_limit_window_seconds: 60, rate_limit_ban_seconds: 120 });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.rate_limit_max_failures, 3);
    assert.equal(created.body.rate_limit_window_seconds, 60);
    assert.equal(created.body.rate_limit_ban_seconds, 120);
    const updated = await admin('PUT', `/v1/admin/keys/${created.body.id}`, { rate_limit_max_failures: 0, rate_limit_ban_seconds: null });
    assert.equal(updated.body.rate_limit_max_failures, null);
    assert.equal(updated.body.rate_limit_window_seconds, 60);
    assert.equal(updated.body.rate_limit_ban_seconds, null);
    const listed = await admin('GET', '/v1/admin/keys');
    assert.ok(listed.body.some((k: { id: string; rate_limit_window_seconds: number | null }) => k.id === created.body.id && k.rate_limit_window_seconds === 60));
    assertError(await admin('PUT', `/v1/admin/keys/${created.body.id}`, { rate_limit_max_failures: -1 }), 400, 'invalid_request');
  });

  it('bans a disabled key from an address after its own number of failures; lists and lifts the ban', async () => {
    const created = await admin('POST', '/v1/admin/keys', { name: 'banned soon', rate_limit_max_failures: 2, rate_limit_ban_seconds: 120 });
    const key: string = created.body.key;
    await admin('PUT', `/v1/admin/keys/${created.body.id}`, { enabled: false });
    assertError(await ctx.server.request('GET', '/v1/models', { token: key }), 401, 'api_key_disabled');
    assertError(await ctx.server.request('GET', '/v1/models', { token: key }), 401, 'api_key_disabled');
    const refused = await ctx.server.request('GET', '/v1/models', { token: key });
    assertError(refused, 429, 'key_banned');
    assert.ok(Number(refused.headers.get('retry-after')) <= 120);

    const bans = await admin('GET', `/v1/admin/keys/${created.body.id}/banned`);
    assert.equal(bans.status, 200);
    assert.equal(bans.body.length, 1);
    assert.ok(bans.body[0].remaining_seconds > 0 && bans.body[0].remaining_seconds <= 120);
    const ip: string = bans.body[0].ip;

    const unbanned = await admin('POST', `/v1/admin/keys/${created.body.id}/unban`, { ip });
    assert.deepEqual(unbanned.body, { unbanned: 1 });
    assertError(await ctx.server.request('GET', '/v1/models', { token: key }), 401, 'api_key_disabled');
    assert.deepEqual((await admin('GET', `/v1/admin/keys/${created.body.id}/banned`)).body, []);

    // The unban forgot the count: two more failures ban again.
    assertError(await ctx.server.request('GET', '/v1/models', { token: key }), 401, 'api_key_disabled');
    assertError(await ctx.server.request('GET', '/v1/models', { token: key }), 429, 'key_banned');
    assert.deepEqual((await admin('POST', `/v1/admin/keys/${created.body.id}/unban-all`)).body, { unbanned: 1 });
    assert.deepEqual((await admin('POST', `/v1/admin/keys/${created.body.id}/unban-all`)).body, { unbanned: 0 });
  });

  it('does not count a disabled key without its own threshold', async () => {
    const created = await admin('POST', '/v1/admin/keys', { name: 'global only' });
    await admin('PUT', `/v1/admin/keys/${created.body.id}`, { enabled: false });
    for (let attempt = 0; attempt < 8; attempt += 1) {
      assertError(await ctx.server.request('GET', '/v1/models', { token: created.body.key }), 401, 'api_key_disabled');
    }
    assert.deepEqual((await admin('GET', `/v1/admin/keys/${created.body.id}/banned`)).body, []);
  });

  it('needs admin (403), answers 404 for an unknown key and 400 without an ip', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create', 'keys:manage']);
    const created = await admin('POST', '/v1/admin/keys', { name: 'k' });
    assertError(await ctx.server.request('GET', `/v1/admin/keys/${created.body.id}/banned`, { token: user.accessToken }), 403, 'permission_denied');
    assertError(await admin('GET', '/v1/admin/keys/no-such-key/banned'), 404, 'api_key_not_found');
    assertError(await admin('POST', `/v1/admin/keys/${created.body.id}/unban`, {}), 400, 'invalid_request');
  });
});
