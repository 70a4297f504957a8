/** The security settings document on PostgreSQL (one row). */
import type { SettingsStore } from '../port/index.js';
import type { Executor } from './executor.js';

/** {@link SettingsStore} on PostgreSQL. */
export class PostgresSettingsStore implements SettingsStore {
  readonly #sql: Executor;

  constructor(sql: Executor) {
    this.#sql = sql;
  }

  async read(): Promise<string | null> {
    return (await this.#sql.first<{ settings: string }>('SELECT settings FROM security_settings WHERE id = 1'))?.settings ?? null;
  }

  async write(json: string, now: number): Promise<void> {
    await this.#sql.run(
      'INSERT INTO security_settings (id, settings, updated_at) VALUES (1, $1, $2) ON CONFLICT (id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at',
      [json, now],
    );
  }
}
