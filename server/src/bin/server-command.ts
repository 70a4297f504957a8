/**
 * The command line shared by the two server binaries, `svc-local` and `svc-supervisor`: the same
 * options, the same REST API, the same start-up messages and exit codes, under each binary's name.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { buildApp } from '../app.js';
import { ConfigError, loadConfig } from '../config.js';
import { endConnectionsOnStop } from '../http/end-connections-on-stop.js';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/** The message `--auth-config` is refused with (release 3.0 removed the JSON configuration). */
export const AUTH_CONFIG_REMOVED =
  '--auth-config was removed in release 3.0: authentication is now stored in a database. ' +
  'Migrate your JSON file once with: svc-migrate-auth --auth-config <file> --db-path <db> --encryption-key <key>';

/** What distinguishes one server binary from the other. */
export interface ServerCommandOptions {
  /** The binary's name, used in `--help` and as the prefix of every error line. */
  name: string;
  description: string;
}

function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('a port is a whole number from 0 to 65535');
  return Number(value);
}

/**
 * Parses `argv` and starts the REST API. Exit codes: 1 for an option the parser refuses, 2 for a
 * configuration that stops start-up (bad variable, `--auth-config`, port in use).
 */
export async function runServerCommand(options: ServerCommandOptions, argv: readonly string[] = process.argv): Promise<void> {
  const fail = (message: string): never => {
    process.stderr.write(`${options.name}: ${message}\n`);
    process.exit(2);
  };
  const program = new Command(options.name)
    .description(options.description)
    .option('-H, --host <host>', 'address to listen on', '127.0.0.1')
    .option('-p, --port <port>', 'port to listen on (0 picks a free one)', parsePort, 9997)
    .addOption(new Option('--log-level <level>', 'log level').choices(logLevels).default('info'))
    .option('--replace-secret-fingerprints', "record this process's JWT signing secret and encryption key as the deployment's (the one start of a deliberate rotation; docs/deployment.md)")
    .addOption(new Option('--auth-config <path>', 'removed in release 3.0').hideHelp())
    .showHelpAfterError()
    .action(async (parsed: { host: string; port: number; logLevel: string; authConfig?: string; replaceSecretFingerprints?: boolean }) => {
      if (parsed.authConfig !== undefined) fail(AUTH_CONFIG_REMOVED);
      try {
        const config = loadConfig(process.env);
        const app = await buildApp(config, { logger: { level: parsed.logLevel }, replaceSecretFingerprints: parsed.replaceSecretFingerprints === true });
        for (const warning of config.warnings) app.log.warn(warning);
        // A stop finishes the requests in flight, then closes their connections rather than waiting
        // for their clients to drop them (keep-alive would hold the process past its grace period).
        const beginStop = endConnectionsOnStop(app.server);
        const stop = () => {
          beginStop();
          void app.close().then(() => process.exit(0));
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        const address = await app.listen({ host: parsed.host, port: parsed.port });
        const authState = config.authEnabled ? 'authentication on' : 'AUTHENTICATION OFF (SVC_AUTH_ADVANCED=false)';
        process.stdout.write(`svc listening on ${address} (${authState}; database ${config.databaseUrl?.redacted ?? config.databasePath})\n`);
      } catch (error) {
        if (error instanceof ConfigError) fail(error.message);
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') fail(`port ${parsed.port} on ${parsed.host} is already in use; pass --port`);
        if (code === 'EACCES' || code === 'EADDRNOTAVAIL') fail(`cannot listen on ${parsed.host}:${parsed.port} (${code})`);
        fail(error instanceof Error ? error.message : String(error));
      }
    });
  await program.parseAsync(argv);
}
