#!/usr/bin/env node
/**
 * `svc-audit-verify`: checks the audit hash chain of a database offline (no server needed) and
 * reports the first broken record: the SQLite file (`--db-path`, else the server's), or the
 * PostgreSQL database of `SVC_DATABASE_URL` when that is set and no `--db-path` is given. Exit code 0 when intact, 1 when broken, 2 when the database
 * cannot be checked.
 */
import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { verifyAuditChainOffline } from '../audit/offline.js';
import { ConfigError, loadConfig } from '../config.js';
import { openStorageForTool } from '../storage/offline-tool-storage.js';
import { storageConfigOf, type StorageConfig } from '../storage/open-storage.js';
import type { Storage } from '../storage/port/index.js';

const program = new Command('svc-audit-verify')
  .description('Verify the hash chain of the svc audit trail and report the first broken record')
  .option('--db-path <path>', 'the SQLite database (default: SVC_DATABASE_URL when set, else SVC_AUTH_DB_PATH, else {SVC_HOME}/auth/auth.db)')
  .option('--json', 'print the report as JSON')
  .showHelpAfterError()
  .action(async (options: { dbPath?: string; json?: boolean }) => {
    let where: StorageConfig;
    try {
      where = options.dbPath === undefined ? storageConfigOf(loadConfig(process.env)) : { kind: 'sqlite', path: options.dbPath };
    } catch (error) {
      fail(error instanceof ConfigError ? error.message : String(error));
    }
    if (where.kind === 'sqlite' && !existsSync(where.path)) fail(`no database at ${where.path}`);
    let storage: Storage | undefined;
    try {
      storage = await openStorageForTool(where);
      const report = await verifyAuditChainOffline(storage);
      if (options.json === true) process.stdout.write(`${JSON.stringify(report)}\n`);
      else if (report.ok) process.stdout.write(`audit chain intact: ${report.checked} records, head ${report.head_hash ?? '(empty)'}\n`);
      else process.stdout.write(`audit chain broken at record ${report.first_broken_id} (${report.reason}) after ${report.checked - 1} intact records\n`);
      process.exitCode = report.ok ? 0 : 1;
    } catch (error) {
      fail(error instanceof Error ? error.message : String(error));
    } finally {
      await storage?.close();
    }
  });

function fail(message: string): never {
  process.stderr.write(`svc-audit-verify: ${message}\n`);
  process.exit(2);
}

await program.parseAsync(process.argv);
