/**
 * The `svc` command: its groups of subcommands, each registered by one module. A new group is one
 * more `register…Commands` function in {@link commandGroups}.
 */
import { Command } from 'commander';
import { registerAuditCommands } from './audit-commands.js';
import { registerAuthCommands } from './auth-commands.js';
import { registerKeyCommands } from './key-commands.js';
import { registerModelCommands } from './model-commands.js';
import { registerUserCommands } from './user-commands.js';

/** Adds one group of commands to the program. */
export type CommandGroup = (program: Command) => void;

/** Every group of `svc` commands, in the order `svc --help` lists them. */
export const commandGroups: readonly CommandGroup[] = [registerAuthCommands, registerUserCommands, registerKeyCommands, registerModelCommands, registerAuditCommands];

/** Builds the `svc` program. */
export function buildProgram(): Command {
  const program = new Command('svc')
    .description('The svc command-line client: log in, manage users, API keys and models, check the audit trail.\nExit codes: 0 ok, 1 usage or invalid input, 2 not authenticated, 3 forbidden, 4 not found or conflict, 5 server or network failure or try again later, 6 the audit chain is broken.')
    .showHelpAfterError()
    .configureOutput({ outputError: (text, write) => write(text) });
  for (const register of commandGroups) register(program);
  return program;
}
