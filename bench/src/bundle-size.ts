/**
 * The size a browser application pays for the SDK: `@svc/sdk` (its compiled `dist/index.js`, every
 * export kept) bundled by esbuild for the browser, minified, then gzipped. The contract's generated
 * types (`generated/openapi.ts`) are type-only and vanish from the bundle; the figures say how much
 * of what is left is openapi-fetch, how much ky, and how much the SDK's own code.
 *
 * `npm run bench` prints the main figures; `npx tsx bench/src/bundle-size.ts` (after `npx tsc -b sdk`,
 * since the compiled SDK is what is measured) runs this benchmark alone and prints the breakdown.
 */
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';

/** What the benchmark returns. Sizes in bytes. */
export interface BundleSizeReport {
  /** The entry point that was bundled. */
  entry: string;
  minified: number;
  minifiedGzip: number;
  /** Minified bytes that come from openapi-fetch (and its helpers package). */
  openapiFetchMinified: number;
  /** min+gzip of the same bundle with openapi-fetch left out (marked external). */
  withoutOpenapiFetchGzip: number;
  /** Minified bytes that come from ky. */
  kyMinified: number;
  /** min+gzip of the same bundle with ky left out (marked external). */
  withoutKyGzip: number;
  /** min+gzip of the SDK's own code: the bundle with both openapi-fetch and ky left out. */
  ownCodeGzip: number;
  /** Minified bytes contributed by the generated type module (`generated/openapi.js`): 0 when it is type-only. */
  generatedTypesMinified: number;
  /** Minified bytes of generated runtime data (e.g. the set of public operations). */
  generatedRuntimeMinified: number;
  /** Every module in the bundle with its minified bytes (from esbuild's metafile), largest first. */
  modules: { path: string; minified: number }[];
}

const OPENAPI_FETCH = /node_modules\/(openapi-fetch|openapi-typescript-helpers)\//;
const KY = /node_modules\/ky\//;

/** Bundles `@svc/sdk` for the browser and measures it. */
export async function measureBundleSize(): Promise<BundleSizeReport> {
  const entry = fileURLToPath(import.meta.resolve('@svc/sdk'));
  const full = await bundle(entry, []);
  const withoutOpenapiFetch = await bundle(entry, ['openapi-fetch']);
  const withoutKy = await bundle(entry, ['ky']);
  const ownCode = await bundle(entry, ['openapi-fetch', 'ky']);
  const gzip = (code: Uint8Array) => gzipSync(code, { level: 9 }).byteLength;
  const inputs = Object.entries(full.inputs);
  const sum = (test: (path: string) => boolean) => inputs.filter(([path]) => test(path)).reduce((total, [, input]) => total + input.bytesInOutput, 0);
  return {
    entry,
    minified: full.code.byteLength,
    minifiedGzip: gzip(full.code),
    openapiFetchMinified: sum((path) => OPENAPI_FETCH.test(path)),
    withoutOpenapiFetchGzip: gzip(withoutOpenapiFetch.code),
    kyMinified: sum((path) => KY.test(path)),
    withoutKyGzip: gzip(withoutKy.code),
    ownCodeGzip: gzip(ownCode.code),
    generatedTypesMinified: sum((path) => path.endsWith('/generated/openapi.js')),
    generatedRuntimeMinified: sum((path) => path.includes('/generated/') && !path.endsWith('/generated/openapi.js')),
    modules: inputs
      .map(([path, input]) => ({ path: path.replace(/^.*node_modules\//, '').replace(/^.*\/sdk\/dist\//, 'sdk: '), minified: input.bytesInOutput }))
      .sort((a, b) => b.minified - a.minified),
  };
}

async function bundle(entry: string, external: string[]): Promise<{ code: Uint8Array; inputs: Metafile['outputs'][string]['inputs'] }> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
    outfile: 'sdk.min.js',
    external,
  });
  const output = result.outputFiles.find((file) => file.path.endsWith('.js'));
  const meta = Object.entries(result.metafile.outputs).find(([path]) => path.endsWith('.js'))?.[1];
  if (output === undefined || meta === undefined) throw new Error('esbuild produced no JavaScript output');
  return { code: output.contents, inputs: meta.inputs };
}

/** Prints the figures of {@link measureBundleSize}, with the share of each part, when run on its own. */
async function printBundleSize(): Promise<void> {
  const size = await measureBundleSize();
  const kB = (bytes: number) => `${(bytes / 1000).toFixed(2)} kB`;
  console.log(`@svc/sdk browser bundle (${size.entry}): minified ${kB(size.minified)}, min+gzip ${kB(size.minifiedGzip)}   (goal <= 12 kB min+gzip)`);
  console.log(`ky:            ${kB(size.kyMinified)} min; accounts for ${kB(size.minifiedGzip - size.withoutKyGzip)} of the min+gzip size`);
  console.log(`openapi-fetch: ${kB(size.openapiFetchMinified)} min; accounts for ${kB(size.minifiedGzip - size.withoutOpenapiFetchGzip)} of the min+gzip size`);
  console.log(`the SDK's own code alone (both left out): ${kB(size.ownCodeGzip)} min+gzip`);
  console.log(`generated types in the bundle: ${size.generatedTypesMinified} B; generated runtime data: ${size.generatedRuntimeMinified} B min`);
  console.log('every module, minified bytes:');
  for (const module of size.modules) console.log(`${String(module.minified).padStart(7)}  ${module.path}`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await printBundleSize();
