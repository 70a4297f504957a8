import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { adminCredentials, assertError, useServer } from '../testing/index.js';

describe('first-run setup', () => {
  const ctx = useServer();

  it('reports needs_setup on an empty database, with the password minimum', async () => {
    const response = await ctx.server.request('GET', '/v1/admin/setup/status');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { needs_setup: true, initialized: false, password_min_length: 15 });
  });

  it('refuses a password shorter than the minimum and creates nothing', async () => {
    const response = await ctx.server.request('POST', '/v1/admin/setup', { body: { username: 'admin', password: 'too short' } });
    assertError(response, 400, 'password_too_short');
    assert.equal((await ctx.server.request('GET', '/v1/admin/setup/status')).body.needs_setup, true);
  });

  it('creates the first admin holding admin, then reports initialized', async () => {
    const response = await ctx.server.request('POST', '/v1/admin/setup', { body: adminCredentials });
    assert.equal(response.status, 201);
    assert.equal(response.body.username, 'admin');
    assert.deepEqual(response.body.permissions, ['admin']);
    assert.equal(response.body.source, 'setup');
    const status = await ctx.server.request('GET', '/v1/admin/setup/status');
    assert.deepEqual(status.body, { needs_setup: false, initialized: true, password_min_length: 15 });
  });

  it('refuses every later setup with 403 setup_already_completed, even with a bad password', async () => {
    for (const body of [{ username: 'second', password: 'another long passphrase here' }, { username: 'third', password: 'x' }]) {
      const response = await ctx.server.request('POST', '/v1/admin/setup', { body });
      assertError(response, 403, 'setup_already_completed');
    }
  });
});
