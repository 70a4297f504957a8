/** The security-settings aggregate of the storage port: one JSON document. */

/** The stored security settings (brute-force thresholds), as JSON text. */
export interface SettingsStore {
  read(): Promise<string | null>;
  write(json: string, now: number): Promise<void>;
}
