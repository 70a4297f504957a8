/**
 * R19 for the offline reset: `svc-reset-auth-password` (the real binary) run against the database of
 * a running server ends every session of the administrator, refresh and access tokens alike.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { contractClient, entryPoint, login, nodeArguments, setupAdmin, startServerProcess } from '@svc/server/testing';

const resetTool = entryPoint('../../../cli/src/bin/svc-reset-auth-password', import.meta.url);

function run(args: string[], env: Record<string, string>): Promise<number | null> {
  const child = spawn(process.execPath, nodeArguments(resetTool, args), { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: 'ignore' });
  return new Promise((resolve) => child.once('close', resolve));
}

describe('security: offline reset (R19)', () => {
  it('R19: svc-reset-auth-password revokes the refresh and access tokens of every session, in the running server', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-r19-'));
    const server = await startServerProcess({ SVC_HOME: home });
    try {
      const client = contractClient(server.baseUrl);
      const admin = await setupAdmin(client);
      const second = await login(client, admin.username, admin.password);
      const sessions = [
        { access: admin.accessToken, refresh: admin.refreshToken },
        { access: second.access_token, refresh: second.refresh_token },
      ];
      assert.equal(await run(['--username', admin.username, '--password', 'an entirely new passphrase'], { SVC_HOME: home }), 0);
      for (const session of sessions) {
        assert.equal((await client.request('GET', '/v1/auth/me', { token: session.access })).status, 401);
        assert.equal((await client.request('POST', '/v1/auth/refresh', { body: { refresh_token: session.refresh } })).status, 401);
      }
      await login(client, admin.username, 'an entirely new passphrase');
    } finally {
      await server.stop();
      await rm(home, { recursive: true, force: true });
    }
  });
});
