#!/usr/bin/env node
/**
 * `svc-local`: starts the svc REST API (and, later, its web UI) on one machine.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { buildApp } from '../app.js';
import { ConfigError, loadConfig } from '../config.js';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('a port is a whole number from 0 to 65535');
  return Number(value);
}

const program = new Command('svc-local')
  .description('Start the svc service (REST API on one machine) with its embedded SQLite database under SVC_HOME')
  .option('-H, --host <host>', 'address to listen on', '127.0.0.1')
  .option('-p, --port <port>', 'port to listen on (0 picks a free one)', parsePort, 9997)
  .addOption(new Option('--log-level <level>', 'log level').choices(logLevels).default('info'))
  .addOption(new Option('--auth-config <path>', 'removed in release 3.0').hideHelp())
  .showHelpAfterError()
  .action(async (options: { host: string; port: number; logLevel: string; authConfig?: string }) => {
    if (options.authConfig !== undefined) {
      fail(
        '--auth-config was removed in release 3.0: authentication is now stored in a database. ' +
          'Migrate your JSON file once with: svc-migrate-auth --auth-config <file> --db-path <db> --encryption-key <key>',
      );
    }
    try {
      const config = loadConfig(process.env);
      const app = await buildApp(config, { logger: { level: options.logLevel } });
      for (const warning of config.warnings) app.log.warn(warning);
      const stop = () => void app.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const address = await app.listen({ host: options.host, port: options.port });
      const authState = config.authEnabled ? 'authentication on' : 'AUTHENTICATION OFF (SVC_AUTH_ADVANCED=false)';
      process.stdout.write(`svc listening on ${address} (${authState}; database ${config.databasePath})\n`);
    } catch (error) {
      if (error instanceof ConfigError) fail(error.message);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') fail(`port ${options.port} on ${options.host} is already in use; pass --port`);
      if (code === 'EACCES' || code === 'EADDRNOTAVAIL') fail(`cannot listen on ${options.host}:${options.port} (${code})`);
      fail(error instanceof Error ? error.message : String(error));
    }
  });

function fail(message: string): never {
  process.stderr.write(`svc-local: ${message}\n`);
  process.exit(2);
}

await program.parseAsync(process.argv);
