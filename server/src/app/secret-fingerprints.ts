/**
 * Start-up check that this process holds the deployment's secrets: the first process to start on a
 * database records a fingerprint of its JWT signing secret and of its API-key encryption key
 * (`crypto/secret-fingerprint.ts`); every later one compares its own and stops with one line naming
 * the secret (never its value) when they differ. Without it, a host given another secret starts and
 * issues tokens the other hosts reject, or stores keys no other host can reveal.
 *
 * Rotation is deliberate: `replace` (the `--replace-secret-fingerprints` option of `svc-local`) records
 * this process's fingerprints in place of the stored ones. A secret this very start generated (SQLite
 * only: its file was missing, and svc generates one only where nothing depends on the old one) is
 * recorded in place of the old one too, with a warning: the old secret is gone, refusing would help no
 * one. See docs/deployment.md, "Secrets and their fingerprints".
 */
import { ConfigError, type SecretSource } from '../config.js';
import { secretFingerprint } from '../crypto/secret-fingerprint.js';
import type { SecretFingerprintStore, SecretName } from '../storage/port/index.js';

/** One secret this process holds. */
export interface HeldSecret {
  name: SecretName;
  /** For messages, e.g. "JWT signing secret". */
  label: string;
  source: SecretSource;
  value: string;
  /** This start generated it (its file was missing). */
  generated: boolean;
}

/** How {@link checkSecretFingerprints} treats a stored fingerprint that differs. */
export interface FingerprintCheckOptions {
  /** Record this process's fingerprints in place of the stored ones (a deliberate rotation). */
  replace: boolean;
  now: number;
  /** Hears what was replaced (never a secret or a fingerprint). */
  warn: (message: string) => void;
}

/** The variable that gives each secret. */
const variables: Record<SecretName, string> = { jwt_signing: 'SVC_AUTH_JWT_SECRET_KEY', encryption: 'SVC_AUTH_ENCRYPTION_KEY' };

/**
 * Records the fingerprints of `secrets` on first start, and compares them on every later one.
 *
 * @throws {ConfigError} naming the first secret whose fingerprint differs from the stored one.
 */
export async function checkSecretFingerprints(store: SecretFingerprintStore, secrets: readonly HeldSecret[], options: FingerprintCheckOptions): Promise<void> {
  for (const secret of secrets) {
    const fingerprint = secretFingerprint(secret.value, secret.name);
    if (options.replace) {
      await store.replace(secret.name, fingerprint, options.now);
      continue;
    }
    const stored = await store.claim(secret.name, fingerprint, options.now);
    if (stored === fingerprint) continue;
    if (secret.generated) {
      await store.replace(secret.name, fingerprint, options.now);
      options.warn(`the ${secret.label} was generated anew (its file ${describeSource(secret.source)} was missing) and replaces the one this database was started with`);
      continue;
    }
    throw new ConfigError(mismatchMessage(secret));
  }
  if (options.replace) options.warn('--replace-secret-fingerprints: this database now records the secrets of this process; start every other host with the same ones');
}

function describeSource(source: SecretSource): string {
  return source.kind === 'env' ? source.variable : source.path;
}

function mismatchMessage(secret: HeldSecret): string {
  const variable = variables[secret.name];
  const given = secret.source.kind === 'env' ? `${secret.source.variable}` : `the file ${secret.source.path}`;
  return (
    `the ${secret.label} given by ${given} is not the one this database was first started with (its fingerprint differs): ` +
    `give every host the same ${variable}, or, to rotate it, stop every host and start one with --replace-secret-fingerprints (docs/deployment.md)`
  );
}
