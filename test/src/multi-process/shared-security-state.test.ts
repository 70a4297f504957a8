/**
 * Brute-force state and the audit chain across two `svc-local` processes on one SVC_HOME: a ban,
 * a lockout and a settings change made through one process apply to the next request served by
 * the other, and both processes append to one hash chain that verifies.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { recordOfflineAuditEvent, openStorage, verifyAuditChainOffline } from '@svc/server/internals';
import {
  assertError,
  contractClient,
  createUser,
  pollUntil,
  setupAdmin,
  startServerProcess,
  storageConfigOfHome,
  type ContractClient,
  type LoggedInUser,
  type ServerProcess,
} from '@svc/server/testing';

const from = (ip: string) => ({ 'x-forwarded-for': ip });

describe('brute-force state and audit chain shared by two processes', () => {
  let home: string;
  const processes: ServerProcess[] = [];
  let a: ContractClient;
  let b: ContractClient;
  let admin: LoggedInUser;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-shared-security-'));
    const env = { SVC_HOME: home, SVC_TRUSTED_PROXIES: '127.0.0.1' };
    processes.push(await startServerProcess(env, [], { securitySettings: 'production' }));
    processes.push(await startServerProcess(env, [], { securitySettings: 'production' }));
    a = contractClient(processes[0]!.baseUrl);
    b = contractClient(processes[1]!.baseUrl);
    admin = await setupAdmin(a);
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  it('a settings change through A applies to failures counted by B', async () => {
    const put = await a.request('PUT', '/v1/admin/security/rate-limit', { token: admin.accessToken, body: { ip: { max_failures: 3, ban_seconds: 300 }, login: { failures_before_lockout: 2 } } });
    assert.equal(put.status, 200);
    const seen = await b.request('GET', '/v1/admin/security/rate-limit', { token: admin.accessToken });
    assert.equal(seen.body.ip.max_failures, 3);
  });

  it('failures split across A and B add up to one ban, enforced by both; an unban through B frees A', async () => {
    const attacker = from('198.51.100.7');
    for (const client of [a, b, a]) {
      assertError(await client.request('POST', '/v1/auth/login', { body: { username: 'ghost', password: 'not a real passphrase' }, headers: attacker }), 401, 'invalid_credentials');
    }
    for (const client of [b, a]) {
      assertError(await client.request('POST', '/v1/auth/login', { body: { username: 'ghost', password: 'not a real passphrase' }, headers: attacker }), 429, 'ip_banned');
    }
    const listed = await b.request('GET', '/v1/admin/security/banned-ips', { token: admin.accessToken });
    assert.deepEqual(listed.body.map((ban: { ip: string }) => ban.ip), ['198.51.100.7']);
    assert.deepEqual((await b.request('POST', '/v1/admin/security/unban-ip', { token: admin.accessToken, body: { ip: '198.51.100.7' } })).body, { unbanned: 1 });
    assertError(await a.request('POST', '/v1/auth/login', { body: { username: 'ghost', password: 'not a real passphrase' }, headers: attacker }), 401, 'invalid_credentials');
  });

  it('an account locked through A cannot log in through B until unlocked', async () => {
    const bob = await createUser(a, admin.accessToken, []);
    await a.request('POST', '/v1/auth/login', { body: { username: bob.username, password: 'wrong passphrase here' }, headers: from('198.51.100.20') });
    await b.request('POST', '/v1/auth/login', { body: { username: bob.username, password: 'wrong passphrase here' }, headers: from('198.51.100.21') });
    assertError(await b.request('POST', '/v1/auth/login', { body: { username: bob.username, password: bob.password }, headers: from('198.51.100.22') }), 401, 'invalid_credentials');
    await a.request('POST', '/v1/admin/security/unlock-account', { token: admin.accessToken, body: { user_id: bob.id } });
    assert.equal((await b.request('POST', '/v1/auth/login', { body: { username: bob.username, password: bob.password } })).status, 200);
  });

  it('both processes (and an offline tool) append to one audit chain that verifies', async () => {
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).request('GET', '/v1/auth/me', { token: admin.accessToken, headers: from(`198.51.100.${100 + (i % 50)}`) })),
    );
    const storage = await openStorage(await storageConfigOfHome(home));
    try {
      await recordOfflineAuditEvent(storage, { event_type: 'offline_check', action: 'test', status: 'success' });
    } finally {
      await storage.close();
    }
    // Each process writes its queue within a fraction of a second; B's search flushes B's.
    const seen = await pollUntil(
      async () => (await a.request('GET', '/v1/audit/search?time_from=now-1h&action=getMe&size=1', { token: admin.accessToken })).body.total as number,
      (total) => total >= 60,
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    assert.ok((seen.at(-1) ?? 0) >= 60);
    const verified = await b.request('GET', '/v1/audit/verify', { token: admin.accessToken });
    assert.equal(verified.body.ok, true, verified.text);
    const offline = await openStorage(await storageConfigOfHome(home));
    try {
      const report = await verifyAuditChainOffline(offline);
      assert.equal(report.ok, true);
      assert.ok(report.checked >= verified.body.checked);
    } finally {
      await offline.close();
    }
    const startups = await a.request('GET', '/v1/audit/search?time_from=now-1h&event_type=startup', { token: admin.accessToken });
    assert.equal(startups.body.total, 2, 'each process recorded its start-up');
  });
});
