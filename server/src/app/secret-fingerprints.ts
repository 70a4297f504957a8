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
 * @throws {ConfigError} naming every secret whose fingerprint differs from the stored one.
 */
export async function checkSecretFingerprints(store: SecretFingerprintStore, secrets: readonly HeldSecret[], options: FingerprintCheckOptions): Promise<void> {
  const differing: HeldSecret[] = [];
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
    differing.push(secret);
  }
  if (differing.length > 0) throw new ConfigError(mismatchMessage(differing));
  if (options.replace) options.warn('--replace-secret-fingerprints: this database now records the secrets of this process; start every other host with the same ones');
}

function describeSource(source: SecretSource): string {
  return source.kind === 'env' ? source.variable : source.path;
}

/** One line naming each differing secret and where it came from, never a value or a fingerprint. */
function mismatchMessage(differing: readonly HeldSecret[]): string {
  const given = differing.map((secret) => `the ${secret.label} given by ${secret.source.kind === 'env' ? secret.source.variable : `the file ${secret.source.path}`}`);
  const one = differing.length === 1;
  return (
    `${given.join(' and ')} ${one ? 'is not the one' : 'are not the ones'} this database was first started with (${one ? 'its fingerprint differs' : 'their fingerprints differ'}): ` +
    `give every host the same ${differing.map((secret) => variables[secret.name]).join(' and ')}, or, to rotate, stop every host and start one with --replace-secret-fingerprints (docs/deployment.md)`
  );
}
