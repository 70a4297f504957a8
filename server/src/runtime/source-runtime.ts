/**
 * Running from TypeScript sources: the tests run svc's `.ts` files directly (vitest in-process, tsx
 * in the child processes and worker threads they start), with no compile step. This module tells a
 * process or thread that svc starts how to load `.ts` too. Compiled code (`dist/`) never needs it:
 * there {@link siblingModule} names the `.js` file and {@link startWorker} starts it as usual.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

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

/**
 * Starts a worker thread on `entry`. A compiled `.js` entry starts as usual; a `.ts` source entry
 * starts through tsx's `tsImport` (loader flags such as `--import` do not reach worker threads).
 */
export function startWorker(entry: URL, options: WorkerOptions = {}): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  const tsxRoot = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsxApi = pathToFileURL(join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then(({ tsImport }) => tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(entry.href)}))`;
  return new Worker(bootstrap, { ...options, eval: true });
}
