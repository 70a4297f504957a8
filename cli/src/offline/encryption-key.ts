/**
 * The encryption key `svc-migrate-auth` encrypts migrated API keys with: `--encryption-key` as the
 * server takes it (the text of `SVC_AUTH_ENCRYPTION_KEY` or of the key file, `{SVC_HOME}/auth/
 * encryption_key`), else the server's own configured key. Reveal works only when this is the key the
 * server runs with.
 */
import { ConfigError, KeyEncryption, resolveSecret, SECRET_ADVICE, SECRET_MIN_BITS, secretStrengthBits, type ServerConfig } from '@svc/server/internals';
import { CliError, ExitCode } from '../exit-codes.js';

/** The key encryption for `given` (the option's value) or the server's configured key. */
export function migrationEncryption(given: string | undefined, config: ServerConfig): KeyEncryption {
  if (given !== undefined) {
    const secret = given.trim();
    if (secretStrengthBits(secret) < SECRET_MIN_BITS) throw new CliError(ExitCode.usage, `--encryption-key is too short: ${SECRET_ADVICE}`);
    return new KeyEncryption(secret);
  }
  try {
    const secret = resolveSecret(config.encryptionKey, {
      label: 'API key encryption key',
      mayGenerate: false,
      missingReason: 'pass --encryption-key, or start the server once so that it generates its key',
    });
    return new KeyEncryption(secret);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(ExitCode.usage, error.message);
    throw error;
  }
}
