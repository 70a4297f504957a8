/**
 * Secret fingerprints of the storage port: which JWT signing secret and API-key encryption key the
 * deployment was first started with, as keyed one-way fingerprints (never the secrets). Every process
 * compares its own at start-up (`app/secret-fingerprints.ts`).
 */

/** The secrets a deployment must hold alike on every host. */
export type SecretName = 'jwt_signing' | 'encryption';

/** The stored fingerprints. */
export interface SecretFingerprintStore {
  /**
   * Records `fingerprint` for `name` unless one is stored, and answers the stored one (the given one
   * when this call recorded it). Processes or hosts starting together agree on the first.
   */
  claim(name: SecretName, fingerprint: string, now: number): Promise<string>;
  /** Stores `fingerprint` for `name` in place of any earlier one (a deliberate rotation). */
  replace(name: SecretName, fingerprint: string, now: number): Promise<void>;
}
