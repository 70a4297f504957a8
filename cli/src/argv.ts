/**
 * `-ak` is the spec's short form of `--api-key`. Commander (like most parsers) allows only one
 * character after a single dash, so the arguments are rewritten before parsing: `-ak KEY` and
 * `-ak=KEY` become `--api-key KEY` and `--api-key=KEY`. Nothing after `--` is touched, nor a token
 * that is the value of the option before it (a password could be `-ak`).
 */
import type { Command } from 'commander';

/**
 * Rewrites `-ak` to `--api-key` in `args` (the arguments after the script path).
 *
 * @param valueOptions - the flags that take a value (`--password`, `-e`, …): the token after one of
 *   them is a value, never rewritten. {@link valueTakingFlags} lists them for a program.
 */
export function expandShortApiKeyFlag(args: readonly string[], valueOptions: ReadonlySet<string>): string[] {
  const result: string[] = [];
  let previous: string | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === '--') {
      result.push(...args.slice(index));
      break;
    }
    const isValue = previous !== undefined && valueOptions.has(previous);
    if (!isValue && arg === '-ak') result.push('--api-key');
    else if (!isValue && arg.startsWith('-ak=')) result.push(`--api-key=${arg.slice(4)}`);
    else result.push(arg);
    previous = arg;
  }
  return result;
}

/** Every flag of `program` and its subcommands that takes a value. */
export function valueTakingFlags(program: Command): Set<string> {
  const flags = new Set<string>();
  const visit = (command: Command) => {
    for (const option of command.options) {
      if (!option.required && !option.optional) continue;
      if (option.long !== undefined) flags.add(option.long);
      if (option.short !== undefined) flags.add(option.short);
    }
    for (const sub of command.commands) visit(sub);
  };
  visit(program);
  return flags;
}
