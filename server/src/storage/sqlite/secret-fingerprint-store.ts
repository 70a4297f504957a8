/** The secret fingerprints on SQLite (`secret_fingerprints`, migration 040). */
import type { SecretFingerprintStore, SecretName } from '../port/secret-fingerprints.js';
import { attempt } from './errors.js';
import { statement, type Connections } from './statements.js';

/** {@link SecretFingerprintStore} on SQLite. */
export class SqliteSecretFingerprintStore implements SecretFingerprintStore {
  readonly #c: Connections;

  constructor(connections: Connections) {
    this.#c = connections;
  }

  async claim(name: SecretName, fingerprint: string, now: number): Promise<string> {
    await this.#c.gate.write(() => {
      statement(this.#c.write, 'INSERT INTO secret_fingerprints (name, fingerprint, recorded_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING').run(name, fingerprint, now);
    });
    const stored = await attempt(() => statement<[string], { fingerprint: string }>(this.#c.read, 'SELECT fingerprint FROM secret_fingerprints WHERE name = ?').get(name));
    return stored?.fingerprint ?? fingerprint;
  }

  replace(name: SecretName, fingerprint: string, now: number): Promise<void> {
    return this.#c.gate.write(() => {
      statement(
        this.#c.write,
        'INSERT INTO secret_fingerprints (name, fingerprint, recorded_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET fingerprint = excluded.fingerprint, recorded_at = excluded.recorded_at',
      ).run(name, fingerprint, now);
    });
  }
}
