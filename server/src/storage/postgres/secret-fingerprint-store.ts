/** The secret fingerprints on PostgreSQL (`secret_fingerprints`, migration 040). */
import type { SecretFingerprintStore, SecretName } from '../port/index.js';
import type { Executor } from './executor.js';

/** {@link SecretFingerprintStore} on PostgreSQL. */
export class PostgresSecretFingerprintStore implements SecretFingerprintStore {
  readonly #sql: Executor;

  constructor(sql: Executor) {
    this.#sql = sql;
  }

  async claim(name: SecretName, fingerprint: string, now: number): Promise<string> {
    await this.#sql.run('INSERT INTO secret_fingerprints (name, fingerprint, recorded_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [name, fingerprint, now]);
    return (await this.#sql.first<{ fingerprint: string }>('SELECT fingerprint FROM secret_fingerprints WHERE name = $1', [name]))?.fingerprint ?? fingerprint;
  }

  async replace(name: SecretName, fingerprint: string, now: number): Promise<void> {
    await this.#sql.run(
      'INSERT INTO secret_fingerprints (name, fingerprint, recorded_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET fingerprint = excluded.fingerprint, recorded_at = excluded.recorded_at',
      [name, fingerprint, now],
    );
  }
}
