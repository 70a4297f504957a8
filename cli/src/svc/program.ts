/**
 * The `svc` command: its global options, its version, and its groups of subcommands, each
 * registered by one module. A new group is one more `register…Commands` function in
 * {@link commandGroups}.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { registerAuditCommands } from './audit-commands.js';
import { registerAuthCommands } from './auth-commands.js';
import { registerChatCommand } from './chat-command.js';
import { connectionOptionNames, withConnectionOptions } from './context.js';
import { registerKeyCommands } from './key-commands.js';
import { registerModelCommands } from './model-commands.js';
import { registerUsageCommands } from './usage-commands.js';
import { registerUserCommands } from './user-commands.js';

/** Adds one group of commands to the program. */
export type CommandGroup = (program: Command) => void;

/** Every group of `svc` commands, in the order `svc --help` lists them. */
export const commandGroups: readonly CommandGroup[] = [
  registerAuthCommands,
  registerUserCommands,
  registerKeyCommands,
  registerModelCommands,
  registerChatCommand,
  registerAuditCommands,
  registerUsageCommands,
];

/** The version of the `@svc/cli` package (its package.json is two folders up, from `src/` and `dist/` alike). */
export function cliVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

/**
 * Builds the `svc` program. The connection options (`-e`, `--api-key`/`-ak`, `--json`) are taken
 * before the command (`svc --json keys list`) or after it (`svc keys list --json`); after it wins.
 */
export function buildProgram(): Command {
  const program = withConnectionOptions(new Command('svc').optionsGroup('Global options (before or after the command):'))
    .optionsGroup('Options:')
    .description('The svc command-line client: log in, manage users, API keys and models, chat with a model, check the audit trail, see usage.\nExit codes: 0 ok, 1 usage or invalid input, 2 not authenticated, 3 forbidden, 4 not found or conflict, 5 server or network failure or try again later, 6 the audit chain is broken.')
    .version(cliVersion(), '-v, --version', 'print the version of svc')
    .enablePositionalOptions()
    .showHelpAfterError()
    .configureOutput({ outputError: (text, write) => write(text) });
  program.hook('preAction', (_program, command) => {
    for (const name of connectionOptionNames) {
      if (command.getOptionValue(name) === undefined && program.getOptionValue(name) !== undefined) command.setOptionValue(name, program.getOptionValue(name));
    }
  });
  for (const register of commandGroups) register(program);
  return program;
}
