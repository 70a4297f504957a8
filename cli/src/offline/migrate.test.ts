/**
 * The real `svc-migrate-auth` binary on a real database file, then a real server (`svc-local` in a
 * child process) on that database: migrated keys authenticate, reveal works only under the same
 * encryption key, short passwords must be changed.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SqliteStorage, verifyAuditChainOffline } from '@svc/server/internals';
import { contractClient, startServerProcess } from '@svc/server/testing';
import { jsonOf, runTool, tools } from '../testing/run-tool.js';

const legacy = {
  auth_config: { algorithm: 'HS256', secret_key: '09d25e094faa6ca2556c818166b7a9563b93f7099f6f0f4caa6cf63b88e8d3e7', token_expire_in_minutes: 30 },
  user_config: [
    { username: 'root', password: 'shortpw1', permissions: ['admin'], api_keys: ['sk-72tkvudyGLPMi'] },
    { username: 'carol', password: 'a long passphrase for carol', permissions: ['models:list', 'models:start', 'models:unregister'], api_keys: ['sk-ZOTLIHanuNt0a', 'sk-ZOTLIHanuNt0b'] },
  ],
};

const newSecret = () => randomBytes(32).toString('hex');
const sha256 = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex');

/** A home whose server key file holds `key`, with the legacy file written beside it. */
async function prepareHome(key: string): Promise<{ home: string; db: string; file: string }> {
  const home = await mkdtemp(join(tmpdir(), 'svc-migrate-'));
  await mkdir(join(home, 'auth'), { recursive: true, mode: 0o700 });
  await writeFile(join(home, 'auth', 'encryption_key'), `${key}\n`, { mode: 0o600 });
  const file = join(home, 'legacy-auth.json');
  await writeFile(file, JSON.stringify(legacy));
  return { home, db: join(home, 'auth', 'auth.db'), file };
}

async function counts(db: string): Promise<{ users: number; keys: number }> {
  const storage = SqliteStorage.open(db, { readOnly: true });
  assert.ok(storage);
  try {
    return { users: (await storage.users.list()).length, keys: await storage.keys.count() };
  } finally {
    await storage.close();
  }
}

/** The `offline_auth_migration` audit events of the database, newest first, and whether its chain is intact. */
async function migrationEvents(
  db: string,
): Promise<{ events: { target: string | null; category: string; details: Record<string, unknown> }[]; chainIntact: boolean; text: string }> {
  const storage = SqliteStorage.open(db);
  try {
    const { hits } = await storage.audit.search({ timeFrom: 0, timeTo: Date.now() + 60_000, eventType: ['offline_auth_migration'] }, 0, 1000);
    return {
      events: hits.map((hit) => ({ target: hit.target, category: hit.category, details: JSON.parse(hit.details ?? '{}') as Record<string, unknown> })),
      chainIntact: (await verifyAuditChainOffline(storage)).ok,
      text: JSON.stringify(storage.database.prepare('SELECT * FROM audit_log').all()),
    };
  } finally {
    await storage.close();
  }
}

describe('svc-migrate-auth', () => {
  describe('with the server\'s encryption key', () => {
    const key = newSecret();
    let paths: { home: string; db: string; file: string };
    const migrate = (args: string[]) => runTool(tools.migrate, ['--auth-config', paths.file, '--db-path', paths.db, ...args], { env: { SVC_HOME: paths.home } });

    beforeAll(async () => {
      paths = await prepareHome(key);
    });
    afterAll(() => rm(paths.home, { recursive: true, force: true }));

    it('--dry-run prints the plan and does not create a missing database', async () => {
      const result = await migrate(['--encryption-key', key, '--dry-run']);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /create +root +permissions: admin +must change password at next login \(Password must be at least 15 characters long\)/);
      assert.match(result.stdout, /create +carol +permissions: models:list, models:write, models:register/);
      assert.match(result.stdout, /Would do: users 2 created, 0 updated, 0 kept; API keys 3 created, 0 re-encrypted, 0 kept\./);
      assert.equal(existsSync(paths.db), false);
    });

    it('migrates in one run (the server\'s key by default); a second run and --dry-run change nothing', async () => {
      const first = await migrate([]);
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual((await counts(paths.db)), { users: 2, keys: 3 });
      const hash = await sha256(paths.db);
      const preview = jsonOf<{ summary: Record<string, number> }>(await migrate(['--dry-run', '--json', '--encryption-key', key]));
      assert.deepEqual(preview.summary, { usersCreated: 0, usersUpdated: 0, usersKept: 2, keysCreated: 0, keysReencrypted: 0, keysKept: 3 });
      assert.equal(await sha256(paths.db), hash, 'a dry run changed the database file');
      const again = await migrate(['--encryption-key', key]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /Done: users 0 created, 0 updated, 2 kept; API keys 0 created, 0 re-encrypted, 3 kept\./);
      assert.deepEqual((await counts(paths.db)), { users: 2, keys: 3 });
      // One audit event per real run (none for the dry run), with counts only: no password, no key.
      const audit = (await migrationEvents(paths.db));
      assert.deepEqual(
        audit.events.map((event) => [event.target, event.category, event.details['usersCreated'], event.details['keysCreated'], event.details['usersKept'], event.details['forced']]),
        [
          ['legacy-auth.json', 'admin', 0, 0, 2, false],
          ['legacy-auth.json', 'admin', 2, 3, 0, false],
        ],
      );
      assert.equal(audit.chainIntact, true);
      for (const secret of ['shortpw1', 'a long passphrase for carol', 'sk-72tkvudyGLPMi', 'sk-ZOTLIHanuNt0a', 'sk-ZOTLIHanuNt0b']) {
        assert.ok(!audit.text.includes(secret), `the audit trail holds ${secret}`);
      }
    });

    it('a running server authenticates the legacy keys with the mapped permissions, reveals them, and asks for a new password', async () => {
      const server = await startServerProcess({ SVC_HOME: paths.home });
      try {
        const client = contractClient(server.baseUrl);
        const me = await client.request('GET', '/v1/auth/me', { token: 'sk-ZOTLIHanuNt0b' });
        assert.equal(me.status, 200);
        assert.equal(me.body.username, 'carol');
        assert.deepEqual(me.body.permissions, ['models:list', 'models:write', 'models:register']);
        const login = await client.request('POST', '/v1/auth/login', { body: { username: 'root', password: 'shortpw1' } });
        assert.equal(login.status, 200);
        assert.equal(login.body.must_change_password, true);
        // The short legacy password's session may do nothing but change it (issue 14, H10); root's key still works.
        const refused = await client.request('GET', '/v1/admin/keys', { token: login.body.access_token });
        assert.equal(refused.status, 403);
        assert.equal(refused.body.error.code, 'password_change_required');
        const keys = await client.request('GET', '/v1/admin/keys', { token: 'sk-72tkvudyGLPMi' });
        const carolsKey = (keys.body as { id: string; owner_username: string; name: string }[]).find((k) => k.owner_username === 'carol' && k.name === 'legacy key 2');
        assert.ok(carolsKey);
        const revealed = await runTool(tools.svc, ['keys', 'reveal', carolsKey.id, '-e', server.baseUrl, '-ak', 'sk-72tkvudyGLPMi'], { env: { SVC_HOME: paths.home } });
        assert.equal(revealed.code, 0, revealed.stderr);
        assert.equal(revealed.stdout, 'sk-ZOTLIHanuNt0b\n');
        // The server sees the tool's events in its audit trail, chained with its own records.
        const events = await client.request('GET', '/v1/audit/search?event_type=offline_auth_migration&time_from=now-1d', { token: 'sk-72tkvudyGLPMi' });
        assert.equal(events.status, 200);
        assert.equal(events.body.total, 2);
        assert.equal(events.body.hits[0].action, 'svc-migrate-auth');
        const verified = await client.request('GET', '/v1/audit/verify', { token: 'sk-72tkvudyGLPMi' });
        assert.equal(verified.body.ok, true);
      } finally {
        await server.stop();
      }
    });

    it('a later run adds only what the file gained: a new key of a kept user, a new user', async () => {
      const grown = join(paths.home, 'grown.json');
      const users = [
        { ...legacy.user_config[0], api_keys: ['sk-72tkvudyGLPMi', 'sk-NewKeyAdded01'] },
        legacy.user_config[1],
        { username: 'dave', password: 'a long passphrase for dave', permissions: ['models:read'], api_keys: [] },
      ];
      await writeFile(grown, JSON.stringify({ ...legacy, user_config: users }));
      const result = await runTool(tools.migrate, ['--auth-config', grown, '--db-path', paths.db, '--encryption-key', key, '--json'], { env: { SVC_HOME: paths.home } });
      assert.equal(result.code, 0, result.stderr);
      const done = jsonOf<{ users: { username: string; action: string }[]; api_keys: { path: string; action: string; name: string }[] }>(result);
      assert.deepEqual(done.users.map((u) => [u.username, u.action]), [['root', 'keep'], ['carol', 'keep'], ['dave', 'create']]);
      assert.deepEqual(done.api_keys.filter((k) => k.action === 'create').map((k) => [k.path, k.name]), [['$.user_config[0].api_keys[1]', 'legacy key 2']]);
      assert.deepEqual((await counts(paths.db)), { users: 3, keys: 4 });
    });

    it('a key already stored for another user is a conflict (exit 4) and nothing is written', async () => {
      const other = join(paths.home, 'other.json');
      await writeFile(other, JSON.stringify({ ...legacy, user_config: [{ username: 'zed', password: 'a long passphrase for zed', permissions: [], api_keys: ['sk-ZOTLIHanuNt0a'] }] }));
      const eventsBefore = (await migrationEvents(paths.db)).events.length;
      const result = await runTool(tools.migrate, ['--auth-config', other, '--db-path', paths.db, '--encryption-key', key], { env: { SVC_HOME: paths.home } });
      assert.equal(result.code, 4);
      assert.match(result.stderr, /\$\.user_config\[0\]\.api_keys\[0\]: this API key is already stored for another user \(carol\)/);
      assert.deepEqual((await counts(paths.db)), { users: 3, keys: 4 });
      assert.equal((await migrationEvents(paths.db)).events.length, eventsBefore, 'a refused migration left an audit event');
    });
  });

  describe('with another encryption key', () => {
    const serverKey = newSecret();
    const otherKey = newSecret();
    let paths: { home: string; db: string; file: string };

    beforeAll(async () => {
      paths = await prepareHome(serverKey);
    });
    afterAll(() => rm(paths.home, { recursive: true, force: true }));

    it('keys authenticate but reveal says they were encrypted with a different key; --force re-encrypts them', async () => {
      const migrate = (args: string[]) => runTool(tools.migrate, ['--auth-config', paths.file, '--db-path', paths.db, ...args], { env: { SVC_HOME: paths.home } });
      assert.equal((await migrate(['--encryption-key', otherKey])).code, 0);
      const server = await startServerProcess({ SVC_HOME: paths.home });
      try {
        const svc = (args: string[]) => runTool(tools.svc, [...args, '-e', server.baseUrl, '-ak', 'sk-72tkvudyGLPMi', '--json'], { env: { SVC_HOME: paths.home } });
        assert.equal(jsonOf<{ username: string }>(await svc(['whoami'])).username, 'root');
        const keyId = jsonOf<{ id: string; owner_username: string }[]>(await svc(['keys', 'list'])).find((k) => k.owner_username === 'root')?.id;
        assert.ok(keyId);
        const refused = await svc(['keys', 'reveal', keyId]);
        assert.equal(refused.code, 4);
        assert.equal(refused.stderr, 'svc: This key was encrypted with a different encryption key and cannot be revealed; it still authenticates\n');

        const forced = await migrate(['--encryption-key', serverKey, '--force']);
        assert.equal(forced.code, 0, forced.stderr);
        assert.match(forced.stdout, /Done: users 0 created, 2 updated, 0 kept; API keys 0 created, 3 re-encrypted, 0 kept\./);
        assert.deepEqual((await counts(paths.db)), { users: 2, keys: 3 });
        const revealed = await svc(['keys', 'reveal', keyId]);
        assert.equal(revealed.code, 0, revealed.stderr);
        assert.deepEqual(JSON.parse(revealed.stdout), { id: keyId, key: 'sk-72tkvudyGLPMi' });
      } finally {
        await server.stop();
      }
    });
  });

  describe('refusals', () => {
    it('--force never leaves the database without an enabled administrator (exit 4, nothing written)', async () => {
      const paths = await prepareHome(newSecret());
      try {
        assert.equal((await runTool(tools.migrate, ['--auth-config', paths.file, '--db-path', paths.db], { env: { SVC_HOME: paths.home } })).code, 0);
        const demoting = join(paths.home, 'demoting.json');
        await writeFile(demoting, JSON.stringify({ ...legacy, user_config: [{ ...legacy.user_config[0], permissions: ['models:list'] }] }));
        const result = await runTool(tools.migrate, ['--auth-config', demoting, '--db-path', paths.db, '--force'], { env: { SVC_HOME: paths.home } });
        assert.equal(result.code, 4);
        assert.match(result.stderr, /without an enabled administrator; nothing was written/);
        const storage = SqliteStorage.open(paths.db, { readOnly: true });
        assert.ok(storage);
        try {
          assert.deepEqual((await storage.users.findByUsername('root'))?.permissions, ['admin']);
        } finally {
          await storage.close();
        }
      } finally {
        await rm(paths.home, { recursive: true, force: true });
      }
    });

    it('an invalid file lists every problem with its JSON path (exit 1) and creates no database', async () => {
      const paths = await prepareHome(newSecret());
      try {
        await writeFile(paths.file, JSON.stringify({ auth_config: { algorithm: 'none', secret_key: 'zz' }, user_config: [{ username: 'a', password: 'p', permissions: ['root'], api_keys: ['sk-123'] }] }));
        const result = await runTool(tools.migrate, ['--auth-config', paths.file, '--db-path', paths.db], { env: { SVC_HOME: paths.home } });
        assert.equal(result.code, 1);
        const lines = result.stderr.trim().split('\n');
        assert.deepEqual(
          lines.slice(0, -1).map((line) => line.slice(paths.file.length + 2).split(':')[0]),
          ['$.auth_config.algorithm', '$.auth_config.secret_key', '$.user_config[0].permissions[0]', '$.user_config[0].api_keys[0]'],
        );
        assert.equal(lines.at(-1), `svc-migrate-auth: 4 problems in ${paths.file}; nothing was written`);
        assert.equal(existsSync(paths.db), false);
        await writeFile(paths.file, '{ not json');
        const broken = await runTool(tools.migrate, ['--auth-config', paths.file, '--db-path', paths.db], { env: { SVC_HOME: paths.home } });
        assert.equal(broken.code, 1);
        assert.match(broken.stderr, /is not valid JSON/);
      } finally {
        await rm(paths.home, { recursive: true, force: true });
      }
    });

    it('a weak --encryption-key is refused (exit 1)', async () => {
      const paths = await prepareHome(newSecret());
      try {
        const result = await runTool(tools.migrate, ['--auth-config', paths.file, '--db-path', paths.db, '--encryption-key', 'abc'], { env: { SVC_HOME: paths.home } });
        assert.equal(result.code, 1);
        assert.match(result.stderr, /--encryption-key is too short/);
        assert.equal(existsSync(paths.db), false);
      } finally {
        await rm(paths.home, { recursive: true, force: true });
      }
    });
  });
});
