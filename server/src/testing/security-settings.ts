/**
 * Brute-force settings for test servers. Tests deliberately fail many logins and send many bad
 * credentials from 127.0.0.1; with the production defaults the address would be banned after ten.
 * So the test helpers seed a fresh database with {@link testSecuritySettings} (limits no test
 * reaches) unless told otherwise; tests of brute-force protection ask for `'production'` or their
 * own values. The production defaults themselves are untouched.
 */
import { join } from 'node:path';
import { mergeSettings, defaultSecuritySettings, type SecuritySettingsUpdate } from '../brute-force/security-settings.js';
import { openStorage, type StorageConfig } from '../storage/open-storage.js';
import type { Storage } from '../storage/port/index.js';

/** Limits far above anything a test reaches. */
export const testSecuritySettings: SecuritySettingsUpdate = Object.freeze({
  ip: { max_failures: 1_000_000 },
  key: { max_failures: 1_000_000 },
  login: { failures_before_lockout: 1_000_000 },
});

/** What a test server starts with: the test settings (default), the production defaults, or given values. */
export type TestSecuritySettings = SecuritySettingsUpdate | 'production';

/**
 * Stores `settings` in the database `where` names unless it already holds settings (a restart keeps what the previous run stored). Best effort: a
 * database that cannot be opened is left for the server to report.
 */
export async function seedSecuritySettings(where: StorageConfig, settings: TestSecuritySettings = testSecuritySettings): Promise<void> {
  if (settings === 'production') return;
  let storage: Storage | undefined;
  try {
    storage = await openStorage(where);
    if ((await storage.settings.read()) === null) {
      await storage.settings.write(JSON.stringify(mergeSettings(defaultSecuritySettings, settings)), Date.now());
    }
  } catch {
    // The server reports an unusable database itself.
  } finally {
    await storage?.close();
  }
}

/** The storage a server started with `env` uses: its PostgreSQL database, else its SQLite file (null when `env` names neither). */
export function storageConfigOfEnvironment(env: Record<string, string>): StorageConfig | null {
  const url = env['SVC_DATABASE_URL'];
  if (url !== undefined && url.trim() !== '') return { kind: 'postgres', url, poolMax: 2 };
  const path = databasePathOf(env);
  return path === null ? null : { kind: 'sqlite', path };
}

/** The database path a server started with `env` uses. */
function databasePathOf(env: Record<string, string>): string | null {
  if (env['SVC_AUTH_DB_PATH'] !== undefined && env['SVC_AUTH_DB_PATH'].trim() !== '') return env['SVC_AUTH_DB_PATH'];
  if (env['SVC_HOME'] !== undefined && env['SVC_HOME'].trim() !== '') return join(env['SVC_HOME'], 'auth', 'auth.db');
  return null;
}
