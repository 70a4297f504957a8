/** The security settings on SQLite: one JSON document in `security_settings`. */
import type { SettingsStore } from '../port/settings.js';
import { attempt } from './errors.js';
import { statement, type Connections } from './statements.js';

/** Reads and writes the stored security settings. */
export class SqliteSettingsStore implements SettingsStore {
  readonly #c: Connections;

  constructor(connections: Connections) {
    this.#c = connections;
  }

  read(): Promise<string | null> {
    return attempt(() => statement<[], { settings: string }>(this.#c.read, 'SELECT settings FROM security_settings WHERE id = 1').get()?.settings ?? null);
  }

  write(json: string, now: number): Promise<void> {
    return this.#c.gate.write(() => {
      statement(
        this.#c.write,
        'INSERT INTO security_settings (id, settings, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at',
      ).run(json, now);
    });
  }
}
