/**
 * Crash safety: a server killed with SIGKILL while clients are creating users and keys loses no
 * write it acknowledged, and leaves a database that passes `PRAGMA integrity_check`.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import Database from 'better-sqlite3';
import { contractClient, login, adminCredentials, setupAdmin, startServerProcess, type ServerProcess } from '@svc/server/testing';

const CLIENTS = 4;
/** Acknowledged creates to wait for before the kill. */
const KILL_AFTER_SUCCESSES = 24;

interface AcknowledgedUser {
  id: string;
  username: string;
}
interface AcknowledgedKey {
  id: string;
  key: string;
  owner: string;
}

describe('crash safety', () => {
  it('keeps every acknowledged user and key, and an intact database, across kill -9', async (t) => {
    const home = await mkdtemp(join(tmpdir(), 'svc-crash-'));
    let first: ServerProcess | undefined;
    let second: ServerProcess | undefined;
    try {
      first = await startServerProcess({ SVC_HOME: home });
      const client = contractClient(first.baseUrl);
      const admin = await setupAdmin(client);

      const users: AcknowledgedUser[] = [];
      const keys: AcknowledgedKey[] = [];
      let killed = false;
      let failuresAfterKill = 0;
      const unexpected: string[] = [];
      // Resolved once enough creates were acknowledged, or something went wrong: the moment to kill.
      let timeToKill!: () => void;
      const killMoment = new Promise<void>((resolve) => (timeToKill = resolve));
      const progressed = () => {
        if (users.length + keys.length >= KILL_AFTER_SUCCESSES || unexpected.length > 0) timeToKill();
      };

      // Each client loops: create a user, then two keys owned by that user, until the server dies.
      const loop = async (clientIndex: number) => {
        for (let round = 0; ; round += 1) {
          try {
            const username = `crash-${clientIndex}-${round}`;
            const created = await client.request('POST', '/v1/admin/users', {
              token: admin.accessToken,
              body: { username, password: `a long passphrase for ${username}`, permissions: ['models:list'] },
            });
            if (created.status !== 201) {
              unexpected.push(`create user ${username}: ${created.status} ${created.text}`);
              progressed();
              return;
            }
            users.push({ id: created.body.id, username });
            progressed();
            for (let k = 0; k < 2; k += 1) {
              const key = await client.request('POST', '/v1/admin/keys', {
                token: admin.accessToken,
                body: { name: `key ${k} of ${username}`, owner: created.body.id },
              });
              if (key.status !== 201) {
                unexpected.push(`create key for ${username}: ${key.status} ${key.text}`);
                progressed();
                return;
              }
              keys.push({ id: key.body.id, key: key.body.key, owner: created.body.id });
              progressed();
            }
          } catch (error) {
            // The connection broke: expected once the server is killed, a failure before that.
            if (killed) {
              failuresAfterKill += 1;
              return;
            }
            unexpected.push(`client ${clientIndex} failed before the kill: ${String(error)}`);
            progressed();
            return;
          }
        }
      };
      const loops = Array.from({ length: CLIENTS }, (_, i) => loop(i));

      await killMoment;
      assert.deepEqual(unexpected, []);
      killed = true;
      await first.kill();
      await Promise.all(loops);
      assert.deepEqual(unexpected, []);
      assert.equal(failuresAfterKill, CLIENTS, 'every client was cut off by the kill');
      assert.ok(users.length > 0 && keys.length > 0);
      await t.annotate(`killed after ${users.length} users and ${keys.length} keys were acknowledged`);

      second = await startServerProcess({ SVC_HOME: home });
      const restarted = contractClient(second.baseUrl);

      // The file is intact.
      const db = new Database(join(home, 'auth', 'auth.db'), { readonly: true, fileMustExist: true });
      try {
        assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
        assert.deepEqual(db.pragma('foreign_key_check'), []);
      } finally {
        db.close();
      }

      // Every acknowledged user exists; the admin's token from before the crash still works.
      const listed = await restarted.request('GET', '/v1/admin/users', { token: admin.accessToken });
      assert.equal(listed.status, 200);
      const byId = new Map<string, string>(listed.body.map((u: { id: string; username: string }) => [u.id, u.username]));
      for (const user of users) assert.equal(byId.get(user.id), user.username, `acknowledged user ${user.username} survived the crash`);

      // Every acknowledged key authenticates as its owner.
      for (const key of keys) {
        const me = await restarted.request('GET', '/v1/auth/me', { token: key.key });
        assert.equal(me.status, 200, `acknowledged key ${key.id} authenticates after the crash: ${me.text}`);
        assert.equal(me.body.id, key.owner);
        assert.equal(me.body.api_key.id, key.id);
      }

      // And the restarted server still serves logins and writes.
      const tokens = await login(restarted, adminCredentials.username, adminCredentials.password);
      const after = await restarted.request('POST', '/v1/admin/users', {
        token: tokens.access_token,
        body: { username: 'after-the-crash', password: 'a long passphrase after the crash' },
      });
      assert.equal(after.status, 201);
    } finally {
      await first?.kill();
      await second?.stop();
      await rm(home, { recursive: true, force: true });
    }
  });
});
