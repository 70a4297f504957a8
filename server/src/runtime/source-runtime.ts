/**
 * Running from TypeScript sources: the tests run svc's `.ts` files directly (vitest in-process, tsx
 * in the child processes and worker threads they start), with no compile step. This module tells a
 * process or thread that svc starts how to load `.ts` too. Compiled code (`dist/`) never needs it:
 * there {@link runningFromSource} is false and {@link siblingModule} names the `.js` file.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** True when this module is the TypeScript source (tests), false in the compiled package. */
export const runningFromSource = import.meta.url.endsWith('.ts');

/**
 * The Node flags that make a new process or worker thread run TypeScript sources: tsx compiles
 * `.ts` on load, and the `svc-source` export condition resolves `@svc/*` packages to their `src/`.
 * tsx is a development dependency, resolved only when this is called (from source).
 */
export function sourceLoaderFlags(): string[] {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return ['--conditions=svc-source', '--import', tsx];
}

/**
 * The URL of a module beside `importerUrl`, named without extension: `.ts` when the importer is
 * a source file, `.js` when it is compiled. For `new Worker(...)` and child-process entry points.
 */
export function siblingModule(relativePathWithoutExtension: string, importerUrl: string): URL {
  const extension = importerUrl.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`${relativePathWithoutExtension}${extension}`, importerUrl);
}
