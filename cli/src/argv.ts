/**
 * `-ak` is the spec's short form of `--api-key`. Commander (like most parsers) allows only one
 * character after a single dash, so the arguments are rewritten before parsing: `-ak KEY` and
 * `-ak=KEY` become `--api-key KEY` and `--api-key=KEY`. Nothing after `--` is touched, nor a token
 * that is the value of the option before it (a password could be `-ak`).
 */

/** Options of `svc` that take a value: the token after them is never rewritten. */
const VALUE_OPTIONS = new Set([
  '-e',
  '--endpoint',
  '--api-key',
  '--username',
  '--password',
  '--current-password',
  '--new-password',
  '--name',
  '--description',
  '--owner',
  '--permissions',
  '--expires-at',
]);

/** Rewrites `-ak` to `--api-key` in `args` (the arguments after the script path). */
export function expandShortApiKeyFlag(args: readonly string[]): string[] {
  const result: string[] = [];
  let previous: string | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === '--') {
      result.push(...args.slice(index));
      break;
    }
    const isValue = previous !== undefined && VALUE_OPTIONS.has(previous);
    if (!isValue && arg === '-ak') result.push('--api-key');
    else if (!isValue && arg.startsWith('-ak=')) result.push(`--api-key=${arg.slice(4)}`);
    else result.push(arg);
    previous = arg;
  }
  return result;
}
