/**
 * `svc-migrate-storage`, the real binary in a child process: a deployment built through the HTTP API
 * of an `svc-local` on SQLite (users, keys, a revoked key, sessions, failure counters, a model, the
 * audit trail) is copied into a real PostgreSQL and served from there by another `svc-local`; plus
 * the dry run, the idempotent re-run, the refusal of a non-empty target and the one-line failures.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { connectionConfig, openStorage, PostgresMigrator, SqliteStorage, transferTables, verifyAuditChainOffline } from '@svc/server/internals';
import {
  contractClient,
  createKey,
  createUser,
  entryPoint,
  login,
  nodeArguments,
  setupAdmin,
  startPostgresCluster,
  startServerProcess,
  type PostgresCluster,
} from '@svc/server/testing';

const tool = entryPoint('../../../cli/src/bin/svc-migrate-storage', import.meta.url);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function migrate(args: readonly string[]): Promise<Run> {
  const child = spawn(process.execPath, nodeArguments(tool, args), { env: { PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface Report {
  outcome: string;
  dry_run: boolean;
  tables: { table: string; source: number; target_before: number; to_copy: number; copied: number; target_after: number }[];
  audit_chain: { source: { ok: boolean; checked: number; head: string | null }; target: { ok: boolean; checked: number; head: string | null } };
}

function reportOf(run: Run): Report {
  assert.equal(run.code, 0, `exit ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as Report;
}

/** Rows per table in the PostgreSQL database at `url`. */
async function targetCounts(url: string): Promise<Record<string, number>> {
  const storage = await openStorage({ kind: 'postgres', url, poolMax: 1 });
  try {
    const counts: Record<string, number> = {};
    for (const table of transferTables) counts[table.name] = await storage.transfer.count(table);
    return counts;
  } finally {
    await storage.close();
  }
}

/** The secrets the SQLite deployment generated, given to the PostgreSQL one as the guide says. */
async function secretsOf(home: string): Promise<Record<string, string>> {
  return {
    SVC_AUTH_JWT_SECRET_KEY: (await readFile(join(home, 'auth', 'jwt_secret_key'), 'utf8')).trim(),
    SVC_AUTH_ENCRYPTION_KEY: (await readFile(join(home, 'auth', 'encryption_key'), 'utf8')).trim(),
  };
}

describe('svc-migrate-storage', () => {
  let cluster: PostgresCluster;
  let home: string;
  let sourcePath: string;
  let targetUrl: string;
  const deployment = { keyId: '', key: '', username: '', password: '', auditHead: '' as string | null };

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    targetUrl = await cluster.createDatabase();
    home = await mkdtemp(join(tmpdir(), 'svc-migrate-storage-'));
    sourcePath = join(home, 'auth', 'auth.db');
    const server = await startServerProcess({ SVC_HOME: home });
    try {
      const client = contractClient(server.baseUrl);
      const admin = await setupAdmin(client);
      const user = await createUser(client, admin.accessToken, ['models:list', 'models:read']);
      deployment.username = user.username;
      deployment.password = user.password;
      const key = await createKey(client, admin.accessToken, { name: 'kept key' });
      deployment.keyId = key.id;
      deployment.key = key.key;
      const revoked = await createKey(client, admin.accessToken, { name: 'revoked key' });
      assert.equal((await client.request('DELETE', `/v1/admin/keys/${revoked.id}`, { token: admin.accessToken })).status, 204);
      const launched = await client.request('POST', '/v1/models', { token: admin.accessToken, body: { model_uid: 'copied-model', model_name: 'echo' } });
      assert.equal(launched.status, 200, JSON.stringify(launched.body));
      const registered = await client.request('POST', '/v1/model_registrations/LLM', { token: admin.accessToken, body: { model: { model_name: 'copied-family' } } });
      assert.equal(registered.status, 200, JSON.stringify(registered.body));
      assert.equal((await client.request('POST', '/v1/auth/login', { body: { username: user.username, password: 'not the password at all' } })).status, 401);
      await login(client, user.username, deployment.password);
    } finally {
      await server.stop();
    }
    const source = await openStorage({ kind: 'sqlite', path: sourcePath });
    try {
      deployment.auditHead = (await verifyAuditChainOffline(source)).head_hash;
    } finally {
      await source.close();
    }
  });

  afterAll(async () => {
    await cluster?.stop();
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  it('Should print what it would copy on a dry run, and change nothing', async () => {
    const report = reportOf(await migrate(['--from', sourcePath, '--to', targetUrl, '--dry-run', '--json']));
    assert.equal(report.outcome, 'would_copy');
    assert.equal(report.dry_run, true);
    const users = report.tables.find((table) => table.table === 'users');
    assert.deepEqual(users && { source: users.source, to_copy: users.to_copy, copied: users.copied }, { source: 2, to_copy: 2, copied: 0 });
    assert.equal((await new PostgresMigrator(connectionConfig({ url: targetUrl })).status()).current, 0, 'not even the schema was created');
    const human = await migrate(['--from', sourcePath, '--to', targetUrl, '--dry-run']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /would copy/);
    assert.match(human.stdout, /Dry run: would copy \d+ rows\. Nothing was changed\./);
    assert.ok(Object.values(await targetCounts(targetUrl)).every((count) => count === 0));
  });

  it('Should copy every table, then verify the counts and the audit chain on the target', async () => {
    const run = await migrate(['--from', sourcePath, '--to', targetUrl]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Copied \d+ rows\. Verified/);
    assert.match(run.stdout, /audit_log/);
    const counts = await targetCounts(targetUrl);
    const source = await openStorage({ kind: 'sqlite', path: sourcePath });
    try {
      for (const table of transferTables) assert.equal(counts[table.name], await source.transfer.count(table), table.name);
    } finally {
      await source.close();
    }
    for (const table of ['users', 'user_permissions', 'api_keys', 'revoked_api_keys', 'refresh_families', 'refresh_tokens', 'security_settings', 'brute_force_entries', 'model_families', 'models', 'audit_log']) {
      assert.ok((counts[table] ?? 0) > 0, `${table} was copied`);
    }
    const target = await openStorage({ kind: 'postgres', url: targetUrl, poolMax: 1 });
    try {
      const chain = await verifyAuditChainOffline(target);
      assert.equal(chain.ok, true);
      assert.equal(chain.head_hash, deployment.auditHead);
    } finally {
      await target.close();
    }
  });

  it('Should change nothing when run again, and say so', async () => {
    const before = await targetCounts(targetUrl);
    const run = await migrate(['--from', sourcePath, '--to', targetUrl]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Nothing to copy/);
    assert.equal(reportOf(await migrate(['--from', sourcePath, '--to', targetUrl, '--json'])).outcome, 'up_to_date');
    assert.deepEqual(await targetCounts(targetUrl), before);
  });

  it('Should serve the copy from PostgreSQL: the key authenticates and reveals, the password logs in, the chain continues', async () => {
    const targetHome = await mkdtemp(join(tmpdir(), 'svc-migrate-storage-pg-'));
    const server = await startServerProcess({ SVC_HOME: targetHome, SVC_DATABASE_URL: targetUrl, ...(await secretsOf(home)) });
    try {
      const client = contractClient(server.baseUrl);
      const me = await client.request('GET', '/v1/auth/me', { token: deployment.key });
      assert.equal(me.status, 200, JSON.stringify(me.body));
      const revealed = await client.request('GET', `/v1/admin/keys/${deployment.keyId}/reveal`, { token: deployment.key });
      assert.equal(revealed.status, 200, JSON.stringify(revealed.body));
      assert.equal((revealed.body as { key: string }).key, deployment.key);
      const tokens = await login(client, deployment.username, deployment.password);
      const models = await client.request('GET', '/v1/models', { token: tokens.access_token });
      assert.equal(models.status, 200);
      assert.match(JSON.stringify(models.body), /copied-model/);
      const families = await client.request('GET', '/v1/model_registrations/LLM', { token: deployment.key });
      assert.equal(families.status, 200);
      assert.match(JSON.stringify(families.body), /copied-family/);
      const verified = await client.request('GET', '/v1/audit/verify', { token: deployment.key });
      assert.equal(verified.status, 200);
      assert.equal((verified.body as { ok: boolean }).ok, true);
      assert.notEqual((verified.body as { head_hash: string }).head_hash, deployment.auditHead, 'the target appended to the copied chain');
    } finally {
      await server.stop();
      await rm(targetHome, { recursive: true, force: true });
    }
  });

  it('Should refuse a non-empty target unless told, and never merge two audit chains', async () => {
    const otherHome = await mkdtemp(join(tmpdir(), 'svc-migrate-storage-other-'));
    try {
      const server = await startServerProcess({ SVC_HOME: otherHome });
      try {
        const client = contractClient(server.baseUrl);
        const admin = await setupAdmin(client);
        await createUser(client, admin.accessToken, ['models:list'], 'merged-user');
      } finally {
        await server.stop();
      }
      const otherPath = join(otherHome, 'auth', 'auth.db');
      const before = await targetCounts(targetUrl);
      const refused = await migrate(['--from', otherPath, '--to', targetUrl]);
      assert.equal(refused.code, 4);
      assert.match(refused.stderr, /^svc-migrate-storage: the target database is not empty \(.*\); pass --into-non-empty/);
      assert.equal(refused.stderr.trim().split('\n').length, 1);
      assert.deepEqual(await targetCounts(targetUrl), before);
      // Two deployments, two audit chains (record 1 differs): a merge cannot join them.
      const merged = await migrate(['--from', otherPath, '--to', targetUrl, '--into-non-empty']);
      assert.equal(merged.code, 4, merged.stderr);
      assert.match(merged.stderr, /^svc-migrate-storage: the target's audit trail is not the source's \(record 1 differs\)/);
      assert.deepEqual(await targetCounts(targetUrl), before);
    } finally {
      await rm(otherHome, { recursive: true, force: true });
    }
  });

  it('Should merge into a non-empty target with --into-non-empty, keeping the rows already there', async () => {
    const mergeUrl = await cluster.createDatabase();
    const target = await openStorage({ kind: 'postgres', url: mergeUrl, poolMax: 1 });
    try {
      const user = { passwordHash: 'not a real hash', source: 'local' as const, permissions: ['models:list'], mustChangePassword: false, now: 1 };
      assert.equal(await target.users.create({ ...user, id: 'already-there', username: 'operator' }), 'created');
    } finally {
      await target.close();
    }
    const refused = await migrate(['--from', sourcePath, '--to', mergeUrl, '--dry-run']);
    assert.equal(refused.code, 4);
    assert.match(refused.stderr, /not empty \(users 1, user_permissions 1\)/);
    const report = reportOf(await migrate(['--from', sourcePath, '--to', mergeUrl, '--into-non-empty', '--json']));
    assert.equal(report.outcome, 'copied');
    const users = report.tables.find((table) => table.table === 'users');
    assert.deepEqual(users && [users.source, users.target_before, users.copied, users.target_after], [2, 1, 2, 3]);
    assert.equal(report.audit_chain.target.head, deployment.auditHead);
    const merged = await openStorage({ kind: 'postgres', url: mergeUrl, poolMax: 1 });
    try {
      assert.equal((await merged.users.findById('already-there'))?.username, 'operator');
    } finally {
      await merged.close();
    }
  });

  it('Should roll the whole copy back when a source row conflicts with the target (a username held by another account)', async () => {
    const conflictUrl = await cluster.createDatabase();
    const target = await openStorage({ kind: 'postgres', url: conflictUrl, poolMax: 1 });
    try {
      const user = { passwordHash: 'not a real hash', source: 'local' as const, permissions: [], mustChangePassword: false, now: 1 };
      assert.equal(await target.users.create({ ...user, id: 'another-id', username: deployment.username }), 'created');
    } finally {
      await target.close();
    }
    const before = await targetCounts(conflictUrl);
    const run = await migrate(['--from', sourcePath, '--to', conflictUrl, '--into-non-empty']);
    assert.equal(run.code, 4, run.stderr);
    assert.match(run.stderr, /^svc-migrate-storage: a source row conflicts with the target \(.*\); nothing was changed\n$/);
    assert.deepEqual(await targetCounts(conflictUrl), before);
  });

  it('Should fail with one readable line: no source, not an svc database, an unreachable target, a wrong password (hidden), a newer schema', async () => {
    const missing = await migrate(['--from', join(home, 'nowhere.db'), '--to', targetUrl]);
    assert.equal(missing.code, 4);
    assert.match(missing.stderr, /^svc-migrate-storage: no database at .*nowhere\.db/);
    const stray = join(home, 'notes.txt');
    await writeFile(stray, 'not a database at all, just some words\n');
    const notSvc = await migrate(['--from', stray, '--to', targetUrl]);
    assert.equal(notSvc.code, 4);
    assert.match(notSvc.stderr, /is not an svc database/);
    const wrongPassword = new URL(targetUrl);
    wrongPassword.password = 'hunter2-wrong-Password';
    const refused = await migrate(['--from', sourcePath, '--to', wrongPassword.href]);
    assert.equal(refused.code, 5, refused.stderr);
    assert.equal(refused.stderr.trim().split('\n').length, 1);
    assert.ok(!refused.stderr.includes('hunter2-wrong-Password'), refused.stderr);
    const unreachable = new URL(targetUrl);
    unreachable.host = '127.0.0.1:1';
    const down = await migrate(['--from', sourcePath, '--to', unreachable.href]);
    assert.equal(down.code, 5, down.stderr);
    assert.match(down.stderr, /^svc-migrate-storage: the target .*\*\*\*/);
    const newer = join(home, 'newer.db');
    await copyFile(sourcePath, newer);
    const future = SqliteStorage.open(newer);
    future.database.pragma('user_version = 9999');
    await future.close();
    const tooNew = await migrate(['--from', newer, '--to', targetUrl]);
    assert.equal(tooNew.code, 1, tooNew.stderr);
    assert.match(tooNew.stderr, /^svc-migrate-storage: the source .*newer\.db: the database schema \(version 9999\) is newer than this server/);
    for (const run of [missing, notSvc, refused, down, tooNew]) assert.equal(run.stdout, '');
  });
});
