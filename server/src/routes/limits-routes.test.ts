/**
 * Usage limits on keys, users and the server-wide default for new keys (issue 17): stored, shown on
 * get and list, validated, set only by whoever manages the key or user, and a key's never above its
 * owner's. The `server-postgres` project runs this file again on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { beforeAll, describe, it } from 'vitest';
import { assertError, createKey, createUser, useServerWithAdmin, type LoggedInUser } from '../testing/index.js';

/** The wire form get and list answer: every field present. */
const full = (limits: Record<string, unknown>) => ({
  requests_per_minute: null,
  tokens_per_minute: null,
  max_concurrent_requests: null,
  token_budget: null,
  models: [],
  ...limits,
});

describe('usage limits on keys, users and the default for new keys', () => {
  const ctx = useServerWithAdmin();
  let creator: LoggedInUser;
  let officer: LoggedInUser;
  beforeAll(async () => {
    creator = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create', 'models:list']);
    officer = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create', 'keys:manage', 'models:list', 'users:manage']);
  });

  const setUserLimits = (userId: string, limits: unknown) => ctx.server.request('PUT', `/v1/admin/users/${userId}`, { token: ctx.admin.accessToken, body: { limits } });
  const setDefault = (limits: unknown) =>
    ctx.server.request('PUT', '/v1/admin/security/rate-limit', { token: ctx.admin.accessToken, body: { default_key_limits: limits } });

  it('stores a key\'s limits on create and shows them, every field present, on get and list', async () => {
    const limits = { requests_per_minute: 60, tokens_per_minute: 100_000, max_concurrent_requests: 4, token_budget: { tokens: 5_000_000, period: 'month' }, models: [{ model: 'llama-3', tokens_per_minute: 20_000 }] };
    const created = await createKey(ctx.server, creator.accessToken, { name: 'limited', limits } as never);
    const expected = full({ ...limits, models: [{ model: 'llama-3', requests_per_minute: null, tokens_per_minute: 20_000 }] });
    assert.deepEqual(created.limits, expected);
    const one = await ctx.server.request('GET', `/v1/admin/keys/${created.id}`, { token: creator.accessToken });
    assert.deepEqual(one.body.limits, expected);
    const list = await ctx.server.request('GET', '/v1/admin/keys', { token: creator.accessToken });
    assert.deepEqual(list.body.find((key: { id: string }) => key.id === created.id).limits, expected);
  });

  it('answers limits: null for a key without any, and replaces or removes them on update', async () => {
    const created = await createKey(ctx.server, creator.accessToken, { name: 'plain' });
    assert.equal(created.limits, null);
    const set = await ctx.server.request('PUT', `/v1/admin/keys/${created.id}`, { token: creator.accessToken, body: { limits: { requests_per_minute: 10 } } });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.limits, full({ requests_per_minute: 10 }));
    const renamed = await ctx.server.request('PUT', `/v1/admin/keys/${created.id}`, { token: creator.accessToken, body: { name: 'renamed' } });
    assert.deepEqual(renamed.body.limits, full({ requests_per_minute: 10 }), 'an update without limits keeps them');
    const cleared = await ctx.server.request('PUT', `/v1/admin/keys/${created.id}`, { token: creator.accessToken, body: { limits: null } });
    assert.equal(cleared.body.limits, null);
    const allNull = await ctx.server.request('PUT', `/v1/admin/keys/${created.id}`, { token: creator.accessToken, body: { limits: { requests_per_minute: null, models: [] } } });
    assert.equal(allNull.body.limits, null, 'limits that limit nothing are none');
  });

  it('refuses invalid limits with 400 and changes nothing', async () => {
    const created = await createKey(ctx.server, creator.accessToken, { name: 'valid', limits: { requests_per_minute: 5 } } as never);
    for (const limits of [
      { requests_per_minute: 0 },
      { tokens_per_minute: -1 },
      { requests_per_minute: 1.5 },
      { requests_per_minute: '60' },
      { max_concurrent_requests: 0 },
      { token_budget: { tokens: 10, period: 'week' } },
      { token_budget: { tokens: 10 } },
      { models: [{ requests_per_minute: 5 }] },
      { burst: 10 },
      'sixty',
    ]) {
      const response = await ctx.server.request('PUT', `/v1/admin/keys/${created.id}`, { token: creator.accessToken, body: { limits } });
      assert.equal(response.status, 400, `${JSON.stringify(limits)}: ${response.text}`);
      assert.equal(typeof response.body.detail, 'string');
      const refusedCreate = await ctx.server.request('POST', '/v1/admin/keys', { token: creator.accessToken, body: { name: 'bad', limits } });
      assert.equal(refusedCreate.status, 400, `${JSON.stringify(limits)}: ${refusedCreate.text}`);
    }
    const unchanged = await ctx.server.request('GET', `/v1/admin/keys/${created.id}`, { token: creator.accessToken });
    assert.deepEqual(unchanged.body.limits, full({ requests_per_minute: 5 }));
  });

  it('lets only whoever manages a key set its limits', async () => {
    const others = await createKey(ctx.server, officer.accessToken, { name: 'officer\'s' });
    const refused = await ctx.server.request('PUT', `/v1/admin/keys/${others.id}`, { token: creator.accessToken, body: { limits: { requests_per_minute: 1 } } });
    assertError(refused, 404, 'api_key_not_found');
    const mine = await createKey(ctx.server, creator.accessToken, { name: 'creator\'s' });
    const managed = await ctx.server.request('PUT', `/v1/admin/keys/${mine.id}`, { token: officer.accessToken, body: { limits: { requests_per_minute: 7 } } });
    assert.equal(managed.status, 200, managed.text);
    assert.deepEqual(managed.body.limits, full({ requests_per_minute: 7 }));
  });

  it('stores a user\'s limits (users:manage) and shows them on get and list', async () => {
    const user = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
    const limits = { requests_per_minute: 100, token_budget: { tokens: 1000, period: 'day' } };
    const set = await setUserLimits(user.id, limits);
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.limits, full(limits));
    const one = await ctx.server.request('GET', `/v1/admin/users/${user.id}`, { token: ctx.admin.accessToken });
    assert.deepEqual(one.body.limits, full(limits));
    const list = await ctx.server.request('GET', '/v1/admin/users', { token: ctx.admin.accessToken });
    assert.deepEqual(list.body.find((entry: { id: string }) => entry.id === user.id).limits, full(limits));
    const refused = await ctx.server.request('PUT', `/v1/admin/users/${user.id}`, { token: creator.accessToken, body: { limits: null } });
    assertError(refused, 403, 'permission_denied');
    const bad = await ctx.server.request('PUT', `/v1/admin/users/${user.id}`, { token: ctx.admin.accessToken, body: { limits: { requests_per_minute: 0 } } });
    assert.equal(bad.status, 400);
    const cleared = await setUserLimits(user.id, null);
    assert.equal(cleared.body.limits, null);
  });

  it('refuses a key\'s limits above its owner\'s with 400 naming the field', async () => {
    const owner = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
    await setUserLimits(owner.id, { requests_per_minute: 100, tokens_per_minute: 1000, token_budget: { tokens: 5000, period: 'day' }, models: [{ model: 'llama-3', tokens_per_minute: 500 }] });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ requests_per_minute: 101 }, 'requests_per_minute'],
      [{ tokens_per_minute: 1001 }, 'tokens_per_minute'],
      [{ token_budget: { tokens: 5001, period: 'day' } }, 'token_budget.tokens'],
      [{ models: [{ model: 'llama-3', tokens_per_minute: 501 }] }, 'models[llama-3].tokens_per_minute'],
      [{ models: [{ model: 'other', tokens_per_minute: 1001 }] }, 'models[other].tokens_per_minute'],
    ];
    for (const [limits, param] of cases) {
      const created = await ctx.server.request('POST', '/v1/admin/keys', { token: owner.accessToken, body: { name: 'too much', limits } });
      assertError(created, 400, 'invalid_request', JSON.stringify(limits));
      assert.equal(created.body.error.param, param);
    }
    const within = await createKey(ctx.server, owner.accessToken, { name: 'within', limits: { requests_per_minute: 100, max_concurrent_requests: 3 } } as never);
    assert.deepEqual(within.limits, full({ requests_per_minute: 100, max_concurrent_requests: 3 }));
    const raised = await ctx.server.request('PUT', `/v1/admin/keys/${within.id}`, { token: ctx.admin.accessToken, body: { limits: { requests_per_minute: 200 } } });
    assertError(raised, 400, 'invalid_request');
    assert.equal(raised.body.error.param, 'requests_per_minute');
    const after = await ctx.server.request('GET', `/v1/admin/keys/${within.id}`, { token: owner.accessToken });
    assert.deepEqual(after.body.limits, full({ requests_per_minute: 100, max_concurrent_requests: 3 }), 'a refused update changes nothing');
  });

  it('gives new keys the server default (lowered to the owner\'s); limits sent, even null, replace it; existing keys keep theirs', async () => {
    const before = await createKey(ctx.server, creator.accessToken, { name: 'before the default' });
    const set = await setDefault({ requests_per_minute: 30, tokens_per_minute: 2000 });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.default_key_limits, full({ requests_per_minute: 30, tokens_per_minute: 2000 }));
    try {
      const shown = await ctx.server.request('GET', '/v1/admin/security/rate-limit', { token: ctx.admin.accessToken });
      assert.deepEqual(shown.body.default_key_limits, full({ requests_per_minute: 30, tokens_per_minute: 2000 }));
      const unrelated = await ctx.server.request('PUT', '/v1/admin/security/rate-limit', { token: ctx.admin.accessToken, body: { ip: { max_failures: 11 } } });
      assert.deepEqual(unrelated.body.default_key_limits, full({ requests_per_minute: 30, tokens_per_minute: 2000 }), 'another setting keeps the default');

      const defaulted = await createKey(ctx.server, creator.accessToken, { name: 'defaulted' });
      assert.deepEqual(defaulted.limits, full({ requests_per_minute: 30, tokens_per_minute: 2000 }));
      const explicit = await createKey(ctx.server, creator.accessToken, { name: 'explicit', limits: { requests_per_minute: 5 } } as never);
      assert.deepEqual(explicit.limits, full({ requests_per_minute: 5 }));
      const none = await createKey(ctx.server, creator.accessToken, { name: 'none', limits: null } as never);
      assert.equal(none.limits, null);
      const kept = await ctx.server.request('GET', `/v1/admin/keys/${before.id}`, { token: creator.accessToken });
      assert.equal(kept.body.limits, null);

      const small = await createUser(ctx.server, ctx.admin.accessToken, ['keys:create']);
      await setUserLimits(small.id, { requests_per_minute: 10 });
      const lowered = await createKey(ctx.server, small.accessToken, { name: 'lowered' });
      assert.deepEqual(lowered.limits, full({ requests_per_minute: 10, tokens_per_minute: 2000 }));

      const refused = await ctx.server.request('PUT', '/v1/admin/security/rate-limit', { token: officer.accessToken, body: { default_key_limits: null } });
      assertError(refused, 403, 'permission_denied');
      const bad = await setDefault({ requests_per_minute: 0 });
      assert.equal(bad.status, 400);
    } finally {
      const cleared = await setDefault(null);
      assert.equal(cleared.body.default_key_limits, null);
      await ctx.server.request('PUT', '/v1/admin/security/rate-limit', { token: ctx.admin.accessToken, body: { ip: { max_failures: 10 } } });
    }
  });
});
