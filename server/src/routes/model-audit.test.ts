import assert from 'node:assert/strict';
import { beforeAll, describe, it } from 'vitest';
import { createKey, useServerWithAdmin } from '../testing/index.js';

describe('audit records of the model routes', () => {
  const ctx = useServerWithAdmin();
  let restrictedKey: string;
  beforeAll(async () => {
    const launched = await ctx.server.request('POST', '/v1/models', { token: ctx.admin.accessToken, body: { model_uid: 'audited-chat', model_name: 'echo' } });
    assert.equal(launched.status, 200, launched.text);
    restrictedKey = (await createKey(ctx.server, ctx.admin.accessToken, { name: 'only-other', model_permissions: [{ permission_type: 'model_id', permission_value: 'other' }] })).key;
  });

  async function recordsFor(modelId: string): Promise<Record<string, unknown>[]> {
    const query = new URLSearchParams({ time_from: 'now-1h', model_id: modelId, size: '100' });
    const response = await ctx.server.request('GET', `/v1/audit/search?${query}`, { token: ctx.admin.accessToken });
    assert.equal(response.status, 200, response.text);
    return response.body.hits as Record<string, unknown>[];
  }

  it('files a chat completion, and one refused for the key, under the model with its name and type', async () => {
    const answered = await ctx.server.request('POST', '/v1/chat/completions', {
      token: ctx.admin.accessToken,
      body: { model: 'audited-chat', messages: [{ role: 'user', content: 'hi' }] },
    });
    assert.equal(answered.status, 200, answered.text);
    const refused = await ctx.server.request('POST', '/v1/chat/completions', { token: restrictedKey, body: { model: 'audited-chat', messages: [{ role: 'user', content: 'hi' }] } });
    assert.equal(refused.status, 403);
    const hits = (await recordsFor('audited-chat')).filter((hit) => hit['endpoint'] === '/v1/chat/completions' || String(hit['route'] ?? '').includes('chat'));
    assert.ok(hits.length >= 2, JSON.stringify(hits));
    for (const hit of hits) {
      assert.equal(hit['model_name'], 'echo');
      assert.equal(hit['model_type'], 'LLM');
    }
    assert.ok(hits.some((hit) => hit['status'] === 'success'));
    assert.ok(hits.some((hit) => hit['status'] !== 'success' && hit['auth_type'] === 'api_key'));
  });

  it('files the launch under the new model', async () => {
    const hits = await recordsFor('audited-chat');
    assert.ok(hits.some((hit) => String(hit['route'] ?? hit['endpoint']).startsWith('/v1/models') && hit['model_name'] === 'echo'), JSON.stringify(hits));
  });
});
