/**
 * The SDK's `client.usage` against a real server: hourly totals written to the server's database
 * (through a storage of its own, as another process's meter writes them), read back as rows and CSV; another user's usage needs
 * `usage:read_all` (PermissionDeniedError otherwise).
 */
import assert from 'node:assert/strict';
import { beforeAll, describe, it } from 'vitest';
import { Client, PermissionDeniedError } from '@svc/sdk';
import { openStorage, storageConfigOf } from '@svc/server/internals';
import { adminCredentials, useServer } from '@svc/server/testing';

const HOUR = 3_600_000;

describe('SDK: client.usage', () => {
  const handle = useServer();
  let admin: Client;
  let adminId: string;
  let bob: Client;
  let bobId: string;

  beforeAll(async () => {
    const baseUrl = handle.server.baseUrl;
    admin = new Client({ baseUrl, maxRetries: 0 });
    await admin.setup.createAdmin(adminCredentials);
    await admin.login(adminCredentials.username, adminCredentials.password);
    adminId = (await admin.auth.me()).id;
    const bobUser = await admin.users.create({ username: 'bob', password: 'bob has a long enough passphrase', permissions: ['models:read'] });
    bobId = bobUser.id;
    bob = new Client({ baseUrl, maxRetries: 0 });
    await bob.login('bob', 'bob has a long enough passphrase');
    const storage = await openStorage(storageConfigOf(handle.server.config));
    const hour = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
    const row = { hourStart: hour, keyId: null, model: 'llama-3', errors: 0, estimatedCalls: 0, latencyMsSum: 200 };
    await storage.usage.add([
      { ...row, userId: adminId, calls: 2, promptTokens: 50, completionTokens: 10 },
      { ...row, userId: bobId, calls: 1, promptTokens: 5, completionTokens: 5 },
    ]);
    await storage.close();
  });

  it('reports everyone’s usage to an administrator, grouped by user', async () => {
    const report = await admin.usage.report({ start: 'now-1d', group_by: 'user' });
    assert.equal(report.scope, 'all');
    assert.deepEqual(
      report.data.map((row) => [row.group, row.calls, row.total_tokens]).sort(),
      [
        [adminId, 2, 60],
        [bobId, 1, 10],
      ].sort(),
    );
  });

  it('reports a user only their own usage, and refuses another user’s', async () => {
    const own = await bob.usage.report({ start: 'now-1d' });
    assert.equal(own.scope, 'own');
    assert.deepEqual(own.data.map((row) => row.calls), [1]);
    await assert.rejects(bob.usage.report({ user_id: adminId }), PermissionDeniedError);
  });

  it('exports the rows as CSV', async () => {
    const csv = await bob.usage.exportCsv({ start: 'now-1d', group_by: 'model' });
    const lines = csv.trimEnd().split('\r\n');
    assert.equal(lines.length, 2);
    assert.match(lines[1] ?? '', /,llama-3,1,0,5,5,10,0,200$/);
  });
});
