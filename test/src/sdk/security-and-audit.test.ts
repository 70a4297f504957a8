/**
 * The SDK's `client.security` and `client.audit` against a real server: settings, bans with
 * `RateLimitError` and `Retry-After`, unbans and unlocks, audit search, filter options, streamed
 * exports (raw and parsed) and verification.
 */
import assert from 'node:assert/strict';
import { beforeAll, describe, it } from 'vitest';
import { BadRequestError, Client, PermissionDeniedError, RateLimitError } from '@svc/sdk';
import { adminCredentials, useServer } from '@svc/server/testing';

describe('SDK: client.security and client.audit', () => {
  const handle = useServer({ env: { SVC_TRUSTED_PROXIES: '127.0.0.1' }, securitySettings: 'production' });
  let admin: Client;
  let baseUrl: string;

  beforeAll(async () => {
    baseUrl = handle.server.baseUrl;
    admin = new Client({ baseUrl, maxRetries: 0 });
    await admin.setup.createAdmin(adminCredentials);
    await admin.login(adminCredentials.username, adminCredentials.password);
  });

  it('reads and updates the settings; an invalid update throws BadRequestError and changes nothing', async () => {
    const before = await admin.security.getSettings();
    assert.equal(before.ip.max_failures, 10);
    const after = await admin.security.updateSettings({ ip: { max_failures: 2, ban_seconds: 90 }, key: { max_failures: 2 }, login: { failures_before_lockout: 2 } });
    assert.equal(after.ip.max_failures, 2);
    await assert.rejects(admin.security.updateSettings({ login: { wait_increment_seconds: 1000, max_wait_seconds: 10 } }), BadRequestError);
    assert.deepEqual(await admin.security.getSettings(), after);
  });

  it('a banned caller gets RateLimitError with Retry-After; unbanIp and unbanAllIps lift bans', async () => {
    const attacker = new Client({ baseUrl, maxRetries: 2, headers: { 'x-forwarded-for': '203.0.113.5' } });
    for (let i = 0; i < 2; i += 1) await assert.rejects(attacker.login('ghost', 'not a real passphrase'));
    const refused = await attacker.login('ghost', 'not a real passphrase').catch((error: unknown) => error);
    assert.ok(refused instanceof RateLimitError, String(refused));
    assert.equal(refused.code, 'ip_banned');
    assert.ok(Number(refused.headers.get('retry-after')) > 60, 'a long ban is not retried by the SDK');
    assert.deepEqual((await admin.security.listBannedIps()).map((ban) => ban.ip), ['203.0.113.5']);
    assert.equal(await admin.security.unbanIp('203.0.113.5'), 1);
    assert.equal((await attacker.health.status()).status, 'ok');
    for (let i = 0; i < 2; i += 1) await assert.rejects(attacker.login('ghost', 'not a real passphrase'));
    assert.equal(await admin.security.unbanAllIps(), 1);
  });

  it('lists and lifts key bans and account lockouts', async () => {
    const guesser = new Client({ baseUrl, maxRetries: 0, apiKey: 'sk-svc-not-a-real-key', headers: { 'x-forwarded-for': '203.0.113.6' } });
    for (let i = 0; i < 2; i += 1) await assert.rejects(guesser.auth.me());
    await admin.security.unbanAllIps();
    const keys = await admin.security.listBannedKeys();
    assert.equal(keys.length, 1);
    assert.equal(await admin.security.unbanKey(keys[0]!.ip, keys[0]!.key_id), 1);
    assert.equal(await admin.security.unbanAllKeys(), 0);
    const bob = await admin.users.create({ username: 'sdk-bob', password: 'bob has a long passphrase', permissions: [] });
    const bobClient = new Client({ baseUrl, maxRetries: 0, headers: { 'x-forwarded-for': '203.0.113.7' } });
    for (let i = 0; i < 2; i += 1) await assert.rejects(bobClient.login('sdk-bob', 'wrong passphrase for bob'));
    await admin.security.unbanAllIps();
    assert.deepEqual((await admin.security.listLockedAccounts()).map((account) => account.user_id), [bob.id]);
    assert.equal(await admin.security.unlockAccount(bob.id), 1);
    assert.equal(await admin.security.unlockAllAccounts(), 0);
    await bobClient.login('sdk-bob', 'bob has a long passphrase');
    await assert.rejects(bobClient.audit.search(), PermissionDeniedError);
  });

  it('searches, lists filter options, exports as a stream and as parsed records, and verifies', async () => {
    const result = await admin.audit.search({ time_from: 'now-1h', status: 'login_failed', size: 5 });
    assert.ok(result.total >= 4 && result.hits.length === 5);
    assert.ok(result.hits.every((hit) => hit.status === 'login_failed'));
    const options = await admin.audit.filterOptions({ time_from: 'now-1h' });
    assert.ok(options.status.includes('ip_banned'));
    const body = await admin.audit.export('csv', { time_from: 'now-1h', status: 'login_failed' });
    const csv = await new Response(body).text();
    assert.equal(csv.trim().split('\r\n').length, 1 + result.total);
    let parsed = 0;
    for await (const record of admin.audit.exportRecords({ time_from: 'now-1h', status: 'login_failed' })) {
      assert.equal(record.status, 'login_failed');
      parsed += 1;
    }
    assert.equal(parsed, result.total);
    const verification = await admin.audit.verify();
    assert.equal(verification.ok, true);
  });
});
