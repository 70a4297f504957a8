/**
 * The two secrets of the service (JWT signing secret and API-key encryption key): taken from the
 * environment, or generated once on first run into `{SVC_HOME}/auth/` and read back on every later
 * start. Files are created complete and exclusively (write a temporary file, then `link` it into
 * place), mode 0600 in a 0700 directory, so processes starting together agree on one value.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError, SECRET_MIN_BITS, secretStrengthBits, type SecretSource } from './config.js';

/** What to do when a secret's file does not exist yet. */
export interface SecretOptions {
  /** A name for messages, e.g. "JWT signing secret". */
  label: string;
  /** When false, a missing file stops start-up with `missingReason` instead of being generated. */
  mayGenerate: boolean;
  missingReason?: string;
}

/** A secret's text, and whether this call generated it (its file was missing and might be created). */
export interface LoadedSecret {
  value: string;
  generated: boolean;
}

/**
 * Returns the secret's text, generating and persisting it when the file is missing and allowed.
 *
 * @throws {ConfigError} when the file is unreadable, too short, or missing where it may not be generated.
 */
export function resolveSecret(source: SecretSource, options: SecretOptions): string {
  return loadSecret(source, options).value;
}

/**
 * {@link resolveSecret}, also telling whether this call generated the secret (another process that
 * won the race to create the file generated it, not this call).
 *
 * @throws {ConfigError} as {@link resolveSecret}.
 */
export function loadSecret(source: SecretSource, options: SecretOptions): LoadedSecret {
  if (source.kind === 'env') return { value: source.value, generated: false };
  const existing = readSecretFile(source.path, options.label);
  if (existing !== null) return { value: existing, generated: false };
  if (!options.mayGenerate) {
    throw new ConfigError(`${options.label} file ${source.path} is missing: ${options.missingReason ?? 'refusing to generate a new one'}`);
  }
  return createSecretFile(source.path, options.label);
}

function readSecretFile(path: string, label: string): string | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError(`cannot read the ${label} file ${path}: ${(error as Error).message}`);
  }
  if (secretStrengthBits(text) < SECRET_MIN_BITS) {
    throw new ConfigError(`the ${label} file ${path} holds fewer than ${SECRET_MIN_BITS} bits; restore it or remove it to generate a new one`);
  }
  return text;
}

function createSecretFile(path: string, label: string): LoadedSecret {
  const directory = dirname(path);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  chmodSync(directory, 0o700);
  const secret = randomBytes(32).toString('hex');
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, secret + '\n', { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, path);
    return { value: secret, generated: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new ConfigError(`cannot create the ${label} file ${path}: ${(error as Error).message}`);
    }
    // Another process won the race; its file is complete because it was linked, not written, in place.
    const winner = readSecretFile(path, label);
    if (winner === null) throw new ConfigError(`the ${label} file ${path} vanished while starting`);
    return { value: winner, generated: false };
  } finally {
    unlinkSync(temporary);
  }
}
