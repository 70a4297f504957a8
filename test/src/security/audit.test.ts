/**
 * Security requirements 35–39: the audit trail records every listed event with the listed fields,
 * never a secret, cannot be forged through a username, is read only by `admin` and never edited
 * through the API; and its hash chain shows the first edited or removed record.
 */
import assert from 'node:assert/strict';
import { beforeAll, describe, it } from 'vitest';
import { allPermissions, operationSpecs } from '@svc/server';
import { chainHash, recordOfflineAuditEvent, openStorage, type StoredAuditEntry } from '@svc/server/internals';
import {
  adminCredentials,
  assertError,
  createKey,
  createUser,
  searchStoredData,
  setupAdmin,
  storageConfigOfHome,
  useServer,
  withTestServer,
  type LoggedInUser,
  type TestServer,
} from '@svc/server/testing';
import { withDatabase } from './support.js';

const from = (ip: string) => ({ 'x-forwarded-for': ip });

async function search(server: TestServer, token: string, query: Record<string, string>): Promise<{ hits: Record<string, any>[]; total: number }> {
  const response = await server.request('GET', `/v1/audit/search?${new URLSearchParams({ time_from: 'now-1h', size: '1000', ...query })}`, { token });
  assert.equal(response.status, 200, response.text);
  return response.body;
}

describe('security: audit trail (R35–R38)', () => {
  const handle = useServer({ env: { SVC_TRUSTED_PROXIES: '127.0.0.1' }, securitySettings: 'production' });
  const secrets: string[] = [];
  let admin: LoggedInUser;
  let bob: LoggedInUser;
  let keyId: string;

  beforeAll(async () => {
    const server = handle.server;
    admin = await setupAdmin(server);
    const token = admin.accessToken;
    await server.request('PUT', '/v1/admin/security/rate-limit', { token, body: { ip: { max_failures: 2 }, login: { failures_before_lockout: 2 } } });
    bob = await createUser(server, token, ['models:list']);
    // Failed logins, a lockout, an IP ban and its unban.
    await server.request('POST', '/v1/auth/login', { body: { username: bob.username, password: 'wrong passphrase one' }, headers: from('203.0.113.1') });
    await server.request('POST', '/v1/auth/login', { body: { username: bob.username, password: 'wrong passphrase two' }, headers: from('203.0.113.2') });
    await server.request('POST', '/v1/auth/login', { body: { username: 'nobody', password: 'wrong passphrase three' }, headers: from('203.0.113.1') });
    await server.request('POST', '/v1/admin/security/unban-ip', { token, body: { ip: '203.0.113.1' } });
    await server.request('POST', '/v1/admin/security/unlock-account', { token, body: { user_id: bob.id } });
    // Failed authorization, user and permission changes, key lifecycle with reveal.
    await server.request('GET', '/v1/admin/users', { token: bob.accessToken });
    await server.request('PUT', `/v1/admin/users/${bob.id}/permissions`, { token, body: { permissions: ['models:list', 'keys:create'] } });
    await server.request('PUT', `/v1/admin/users/${bob.id}`, { token, body: { enabled: true } });
    const key = await createKey(server, token, { name: '=SUM(A1:A9)' });
    keyId = key.id;
    await server.request('GET', '/v1/auth/me', { token: key.key });
    await server.request('PUT', `/v1/admin/keys/${key.id}`, { token, body: { description: 'rotated' } });
    const revealed = await server.request('GET', `/v1/admin/keys/${key.id}/reveal`, { token });
    await server.request('DELETE', `/v1/admin/keys/${key.id}`, { token });
    const doomed = await createUser(server, token, []);
    await server.request('DELETE', `/v1/admin/users/${doomed.id}`, { token });
    // An offline tool's event (svc-reset-auth-password records one like it).
    const storage = await openStorage(await storageConfigOfHome(server.home));
    try {
      await recordOfflineAuditEvent(storage, { event_type: 'offline_password_reset', action: 'svc-reset-auth-password', status: 'success', username: 'admin' });
    } finally {
      await storage.close();
    }
    secrets.push(
      adminCredentials.password,
      admin.accessToken,
      admin.refreshToken,
      bob.password,
      bob.accessToken,
      bob.refreshToken,
      doomed.password,
      doomed.accessToken,
      key.key,
      revealed.body.key,
      'wrong passphrase one',
      'wrong passphrase two',
      'wrong passphrase three',
    );
  });

  it('R35: records login success and failure, lockout, ban, unban, failed authorization, user, permission and key changes, reveal, setup, offline reset and start-up', async () => {
    const server = handle.server;
    const token = admin.accessToken;
    const expectations: [string, Record<string, string>, (hit: Record<string, any>) => boolean][] = [
      ['start-up', { event_type: 'startup' }, (hit) => hit['action'] === 'server.start'],
      ['setup', { action: 'createFirstAdmin' }, (hit) => hit['status'] === 'success'],
      ['login success', { action: 'login', status: 'success' }, (hit) => hit['user'] === 'admin'],
      ['login failure', { action: 'login', status: 'login_failed' }, (hit) => hit['user'] === bob.username && hit['reason'] === 'wrong_password'],
      ['login failure for an unknown user', { action: 'login', status: 'login_failed' }, (hit) => hit['reason'] === 'unknown_user'],
      ['lockout', { event_type: 'account_locked' }, (hit) => hit['user_id'] === bob.id],
      ['ban', { event_type: 'ip_banned' }, (hit) => hit['client_ip'] === '203.0.113.1' && typeof hit['details']?.banned_until === 'string'],
      ['unban', { event_type: 'ip_unbanned' }, (hit) => hit['client_ip'] === '203.0.113.1'],
      ['unban call', { action: 'unbanIp' }, (hit) => hit['target'] === '203.0.113.1'],
      ['unlock', { event_type: 'account_unlocked' }, (hit) => hit['user_id'] === bob.id],
      ['failed authorization', { status: 'denied' }, (hit) => hit['user'] === bob.username && hit['http_status'] === 403],
      ['user creation', { action: 'createUser' }, (hit) => hit['status'] === 'success' && hit['target'] !== null],
      ['user change', { action: 'updateUser' }, (hit) => hit['target'] === bob.id],
      ['permission change', { action: 'setUserPermissions' }, (hit) => hit['target'] === bob.id],
      ['user deletion', { action: 'deleteUser' }, (hit) => hit['status'] === 'success'],
      ['key creation', { action: 'createApiKey' }, (hit) => hit['target'] === keyId],
      ['key update', { action: 'updateApiKey' }, (hit) => hit['target'] === keyId],
      ['key reveal', { action: 'revealApiKey' }, (hit) => hit['target'] === keyId],
      ['key deletion', { action: 'deleteApiKey' }, (hit) => hit['target'] === keyId],
      ['offline reset', { event_type: 'offline_password_reset' }, (hit) => hit['action'] === 'svc-reset-auth-password'],
    ];
    for (const [what, query, matches] of expectations) {
      const { hits } = await search(server, token, query);
      assert.ok(hits.some(matches), `no record of ${what}: ${JSON.stringify(hits.slice(0, 3))}`);
    }
  });

  it('R36: each API record has UTC time, actor, auth type, client IP, method, route, action, result, reason, latency and request id', async () => {
    const server = handle.server;
    const { hits } = await search(server, admin.accessToken, { action: 'getMe', auth_type: 'api_key' });
    const hit = hits[0] as Record<string, any>;
    assert.ok(hit, 'the call with the key is recorded');
    assert.match(hit['timestamp'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(hit['user_id'], admin.id);
    assert.equal(hit['api_key_id'], keyId);
    assert.equal(hit['api_key_name'], '=SUM(A1:A9)');
    assert.equal(hit['client_ip'], '127.0.0.1');
    assert.equal(hit['method'], 'GET');
    assert.equal(hit['route'], '/v1/auth/me');
    assert.equal(hit['status'], 'success');
    assert.equal(hit['http_status'], 200);
    assert.equal(typeof hit['latency_ms'], 'number');
    assert.match(hit['request_id'], /^[0-9a-f-]{36}$/);
    const failed = (await search(server, admin.accessToken, { action: 'login', status: 'login_failed' })).hits[0] as Record<string, any>;
    assert.equal(failed['reason'] !== null, true);
    assert.equal(failed['category'], 'auth');
    assert.equal(failed['route'], '/v1/auth/login');
  });

  it('R37: no password, token or key of this run is anywhere in the database files (WAL included)', async () => {
    const server = handle.server;
    await search(server, admin.accessToken, {}); // flushes this process's queue
    // SQLite: the raw bytes of the file and its WAL. PostgreSQL: every table as text, and with the
    // run's own cluster this database's files and the write-ahead log.
    const { searched, found, filesInReach } = await searchStoredData(
      server.home,
      secrets.map((secret) => ({ label: `a secret of this run (${secret.slice(0, 6)}…)`, bytes: Buffer.from(secret) })),
    );
    assert.deepEqual(found, []);
    if (filesInReach) assert.ok(searched.has('log'), 'the write-ahead log is searched too');
    assert.ok(searched.has('database') || searched.has('dump'), 'the stored data was not searched');
  });

  it('R38: a username with CR LF stays one field of one record in the database, the exports and the API (an unknown one as its marker)', async () => {
    const server = handle.server;
    const forged = 'eve\r\n2026-11-21T10:00:00.000Z,api_call,auth,jwt,x,admin,success';
    await server.request('POST', '/v1/auth/login', { body: { username: forged, password: 'whatever passphrase' }, headers: from('203.0.113.99') });
    const { hits } = await search(server, admin.accessToken, { client_ip: '203.0.113.99' });
    assert.equal(hits.length, 1);
    // No account has this name: the trail keeps its keyed marker, never the text (issue 14, H12).
    assert.match(String(hits[0]?.['user']), /^unknown-user:[0-9a-f]{16}$/);
    const stored = await withDatabase(server.home, (db) => db.column<string>("SELECT username FROM audit_log WHERE client_ip = '203.0.113.99'"));
    assert.deepEqual(stored, [hits[0]?.['user']]);
    for (const format of ['csv', 'jsonl']) {
      const exported = await server.request('GET', `/v1/audit/export?format=${format}&client_ip=203.0.113.99&time_from=now-1h`, { token: admin.accessToken });
      assert.equal(exported.status, 200);
      const lines = exported.text.split(format === 'csv' ? '\r\n' : '\n').filter((line) => line !== '');
      assert.equal(lines.length, format === 'csv' ? 2 : 1, exported.text);
      assert.ok(!/[\r\n]/.test(lines.join('')));
    }
  });

  it('exports escape spreadsheet formulas in CSV and stream every matching record', async () => {
    const server = handle.server;
    const csv = await server.request('GET', '/v1/audit/export?format=csv&action=getMe&auth_type=api_key&time_from=now-1h', { token: admin.accessToken });
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(csv.headers.get('content-disposition') ?? '', /^attachment; filename="svc-audit-.*\.csv"$/);
    assert.ok(csv.text.includes(`"'=SUM(A1:A9)"`), csv.text.slice(0, 600));
    assert.ok(!/,=SUM/.test(csv.text));
    const { total } = await search(server, admin.accessToken, {});
    const jsonl = await server.request('GET', '/v1/audit/export?format=jsonl&time_from=now-1h', { token: admin.accessToken });
    const records = jsonl.text.trim().split('\n').map((line) => JSON.parse(line) as { id: number; timestamp: string });
    assert.ok(records.length >= total, `${records.length} exported, ${total} found`);
    for (let i = 1; i < records.length; i += 1) assert.ok((records[i - 1] as { timestamp: string }).timestamp >= (records[i] as { timestamp: string }).timestamp, 'newest first');
  });

  it('searches by substring and comma-separated filters, pages newest first, and lists filter options', async () => {
    const server = handle.server;
    const token = admin.accessToken;
    const page1 = await search(server, token, { status: 'login_failed,denied', size: '2' });
    assert.ok(page1.total >= 4);
    assert.equal(page1.hits.length, 2);
    assert.ok(page1.hits.every((hit) => ['login_failed', 'denied'].includes(hit['status'])));
    const page2 = await search(server, token, { status: 'login_failed,denied', size: '2', page_from: '2' });
    assert.notEqual(page2.hits[0]?.['id'], page1.hits[0]?.['id']);
    assert.ok(page1.hits[0]?.['timestamp'] >= page2.hits[0]?.['timestamp']);
    const byUser = await search(server, token, { user: bob.username.slice(2, 8).toUpperCase() });
    assert.ok(byUser.total > 0 && byUser.hits.every((hit) => String(hit['user']).includes(bob.username.slice(2, 8))));
    const future = await search(server, token, { time_from: String(Date.now() + 3_600_000), time_to: new Date(Date.now() + 7_200_000).toISOString() });
    assert.equal(future.total, 0);
    assertError(await server.request('GET', '/v1/audit/search?time_from=yesterday', { token }), 400, 'invalid_request');
    assertError(await server.request('GET', '/v1/audit/search?time_from=now&time_to=now-1h', { token }), 400, 'invalid_request');
    const options = await server.request('GET', '/v1/audit/filter-options?time_from=now-1d', { token });
    assert.equal(options.status, 200);
    assert.ok(options.body.status.includes('login_failed'));
    assert.ok(options.body.user.includes('admin'));
    assert.ok(options.body.event_type.includes('startup'));
  });

  it('leaves out the actions named in exclude_action (the web UI hides its page-load calls), in search and export', async () => {
    const server = handle.server;
    const token = admin.accessToken;
    const all = await search(server, token, {});
    assert.ok(all.hits.some((hit) => hit['action'] === 'getMe'), 'the trail holds getMe calls');
    const hidden = await search(server, token, { exclude_action: 'getMe, login' });
    assert.ok(hidden.total > 0);
    assert.ok(hidden.hits.every((hit) => hit['action'] !== 'getMe' && hit['action'] !== 'login'));
    const both = await search(server, token, { action: 'getMe,createUser', exclude_action: 'getMe' });
    assert.ok(both.total > 0 && both.hits.every((hit) => hit['action'] === 'createUser'));
    const exported = await server.request('GET', `/v1/audit/export?${new URLSearchParams({ time_from: 'now-1h', format: 'jsonl', exclude_action: 'getMe' })}`, { token });
    assert.equal(exported.status, 200);
    const actions = exported.text.trim().split('\n').map((line) => (JSON.parse(line) as { action: string }).action);
    assert.ok(actions.length > 0 && !actions.includes('getMe'));
  });
});

describe('security: audit access and integrity (R39)', () => {
  it('R39: no route edits or deletes audit records, and only admin reads them', async () => {
    const auditOperations = operationSpecs.filter((spec) => spec.path.startsWith('/v1/audit/'));
    assert.ok(auditOperations.length >= 4);
    for (const spec of auditOperations) {
      assert.equal(spec.method, 'GET', `${spec.operationId} changes audit records`);
      assert.deepEqual(spec.requiredPermissions, ['admin']);
    }
    await withTestServer({}, async (server) => {
      const admin = await setupAdmin(server);
      const everythingButAdmin = allPermissions.filter((permission) => permission !== 'admin');
      const almost = await createUser(server, admin.accessToken, everythingButAdmin);
      for (const spec of auditOperations) {
        const path = spec.operationId === 'exportAudit' ? `${spec.path}?format=csv` : spec.path;
        assertError(await server.request('GET', path, { token: almost.accessToken }), 403, 'permission_denied', spec.operationId);
      }
      for (const method of ['PUT', 'DELETE', 'POST', 'PATCH']) {
        const response = await server.request(method, '/v1/audit/search', { token: admin.accessToken });
        assert.ok([404, 405].includes(response.status), `${method} /v1/audit/search answered ${response.status}`);
      }
    });
  });

  it('an edited record breaks the chain at that record; a removed one at the next; the intact chain verifies', async () => {
    await withTestServer({}, async (server) => {
      const admin = await setupAdmin(server);
      for (let i = 0; i < 5; i += 1) await server.request('GET', '/v1/auth/me', { token: admin.accessToken });
      const intact = await server.request('GET', '/v1/audit/verify', { token: admin.accessToken });
      assert.equal(intact.body.ok, true, intact.text);
      assert.ok(intact.body.checked >= 7);
      assert.match(intact.body.head_hash, /^[0-9a-f]{64}$/);
      const ids = await withDatabase(server.home, (db) => db.column<number>('SELECT id FROM audit_log ORDER BY id'));
      const edited = ids[3] as number;
      // Records are stored coded, each backend in its own layout (migrations 035, 045): the edit moves the record's time, a column both keep as is.
      assert.equal(await withDatabase(server.home, (db) => db.run('UPDATE audit_entries SET timestamp = timestamp + 1 WHERE id = ?', [edited])), 1);
      const afterEdit = await server.request('GET', '/v1/audit/verify', { token: admin.accessToken });
      assert.deepEqual([afterEdit.body.ok, afterEdit.body.first_broken_id, afterEdit.body.reason], [false, edited, 'record_altered']);
      // Overwriting the edited record's stored hash with garbage does not hide the edit.
      assert.equal(await withDatabase(server.home, (db) => db.run('UPDATE audit_entries SET hash = ? WHERE id = ?', [Buffer.alloc(32, 0xff), edited])), 1);
      const overwritten = await server.request('GET', '/v1/audit/verify', { token: admin.accessToken });
      assert.equal(overwritten.body.first_broken_id, edited, 'its stored hash no longer matches its content');
      // Re-chaining the edited record correctly only moves the break to the next record: its hash
      // covers the edited record's old hash (prev_hash is derived from the record before, migration 035).
      await withDatabase(server.home, async (db) => {
        // The digests are stored as 32 raw bytes (migration 022); the view audit_log reads the record decoded.
        const [row] = await db.all<Omit<StoredAuditEntry, 'prev_hash'> & { prev_hash: Buffer }>('SELECT * FROM audit_log WHERE id = ?', [edited]);
        assert.ok(row !== undefined);
        const rechained = Buffer.from(chainHash(row.prev_hash.toString('hex'), row), 'hex');
        assert.equal(await db.run('UPDATE audit_entries SET hash = ? WHERE id = ?', [rechained, edited]), 1);
      });
      const rechained = await server.request('GET', '/v1/audit/verify', { token: admin.accessToken });
      assert.deepEqual([rechained.body.ok, rechained.body.first_broken_id, rechained.body.reason], [false, ids[4], 'record_altered']);
      assert.equal(await withDatabase(server.home, (db) => db.run('DELETE FROM audit_entries WHERE id = ?', [edited])), 1);
      const afterDelete = await server.request('GET', '/v1/audit/verify', { token: admin.accessToken });
      assert.deepEqual([afterDelete.body.ok, afterDelete.body.first_broken_id, afterDelete.body.reason], [false, ids[4], 'previous_hash_mismatch']);
    });
  });
});
