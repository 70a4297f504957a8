/**
 * `svc-audit-verify`, the offline check of the audit hash chain: exit 0 on an intact chain, 1 with
 * the first broken record after an edit, 2 with one line when there is no database.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'vitest';
import { entryPoint, nodeArguments, setupAdmin, withTestServer } from '@svc/server/testing';
import { databasePath, withSqliteFile } from './support.js';

const cli = entryPoint('../../../server/src/bin/svc-audit-verify', import.meta.url);

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, nodeArguments(cli, args), { env: { PATH: process.env['PATH'] ?? '' } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? 1), stdout, stderr });
    });
  });
}

describe('svc-audit-verify', () => {
  it('reports an intact chain (0), the first edited record (1) and a missing database (2)', async () => {
    await withTestServer({}, async (server) => {
      const admin = await setupAdmin(server);
      await server.request('GET', '/v1/audit/verify', { token: admin.accessToken }); // writes this process's queue
      const intact = await run(['--db-path', databasePath(server.home), '--json']);
      assert.equal(intact.code, 0, intact.stderr);
      const report = JSON.parse(intact.stdout) as { ok: boolean; checked: number };
      assert.equal(report.ok, true);
      assert.ok(report.checked >= 3);
      const second = withSqliteFile(server.home, (db) => db.prepare('SELECT id FROM audit_log ORDER BY id LIMIT 1 OFFSET 1').pluck().get()) as number;
      withSqliteFile(server.home, (db) => db.prepare('UPDATE audit_entries SET client_ip = action WHERE id = ?').run(second));
      const broken = await run(['--db-path', databasePath(server.home)]);
      assert.equal(broken.code, 1);
      assert.equal(broken.stdout.trim(), `audit chain broken at record ${second} (record_altered) after 1 intact records`);
    });
    const missing = await run(['--db-path', '/nonexistent/svc/auth.db']);
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr, 'svc-audit-verify: no database at /nonexistent/svc/auth.db\n');
  });
});
