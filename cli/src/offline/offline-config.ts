/**
 * What the offline tools take from the server's configuration: the database path and the password
 * policy, read by the server's own `loadConfig` (so `SVC_HOME`, `SVC_AUTH_DB_PATH` and
 * `SVC_PASSWORD_MIN_LENGTH` mean exactly what they mean to the server).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, loadConfig, SqliteStorage, type ServerConfig } from '@svc/server/internals';
import { CliError, ExitCode } from '../exit-codes.js';

/** The server configuration, with a bad variable reported as a usage error. */
export function serverConfig(): ServerConfig {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(ExitCode.usage, error.message);
    throw error;
  }
}

/**
 * `--db-path`, else the server's database path; refused when no database file exists there, or when
 * the file is not an svc database (not SQLite, or SQLite without svc's schema, an empty file
 * included): the tools never turn a stray file into a database (issue 14, H11).
 */
export async function existingDatabasePath(dbPath: string | undefined, config: ServerConfig): Promise<string> {
  const path = dbPath === undefined ? config.databasePath : resolve(dbPath);
  if (!existsSync(path)) {
    throw new CliError(ExitCode.notFoundOrConflict, `no database at ${path}; pass --db-path, or set SVC_AUTH_DB_PATH or SVC_HOME as the server has them`);
  }
  const notSvc = `${path} is not an svc database; pass --db-path with the server's database (SVC_HOME/auth/auth.db); nothing was changed`;
  let probe: SqliteStorage | null;
  try {
    probe = SqliteStorage.open(path, { readOnly: true });
  } catch {
    throw new CliError(ExitCode.notFoundOrConflict, notSvc);
  }
  if (probe === null) throw new CliError(ExitCode.notFoundOrConflict, notSvc);
  await probe.close();
  return path;
}
