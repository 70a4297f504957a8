/**
 * How tests start svc's binaries as real processes: from the TypeScript sources, through tsx (see
 * `runtime/source-runtime.ts`), so no compile step runs before the tests.
 */
import { fileURLToPath } from 'node:url';
import { siblingModule, sourceLoaderFlags } from '../runtime/source-runtime.js';

/** The path of an entry point beside `importerUrl` (`.ts` from source, `.js` compiled). */
export function entryPoint(relativePathWithoutExtension: string, importerUrl: string): string {
  return fileURLToPath(siblingModule(relativePathWithoutExtension, importerUrl));
}

/** The arguments for `spawn(process.execPath, …)` that run `script` with `args`. */
export function nodeArguments(script: string, args: readonly string[] = []): string[] {
  return [...(script.endsWith('.ts') ? sourceLoaderFlags() : []), script, ...args];
}

/** A `sh` command line that runs `script` with Node, for wrapper scripts on a test's PATH. */
export function nodeShellCommand(script: string): string {
  return [process.execPath, ...nodeArguments(script)].map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(' ');
}
