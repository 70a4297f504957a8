/**
 * The SDK's browser path: `@svc/sdk` and `@svc/sdk/mocks`, resolved through the package's exports map
 * the way a browser bundler does it, bundle with esbuild for `platform: 'browser'` without a single
 * Node built-in. esbuild refuses `node:*` and bare built-ins (`fs`, `crypto`, …) on that platform
 * unless they are external, so a clean build plus an output with no such import is the proof.
 */
import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { build, type BuildFailure, type Message, type Metafile } from 'esbuild';

/** Where `@svc/sdk` is resolved from: this package, which depends on it like an application would. */
const resolveDir = fileURLToPath(new URL('.', import.meta.url));
const nodeBuiltins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

interface Bundle {
  code: string;
  inputs: string[];
  imports: Metafile['outputs'][string]['imports'];
  exports: string[];
  warnings: Message[];
}

async function bundleForBrowser(specifier: string, external: string[] = []): Promise<Bundle> {
  try {
    const result = await build({
      stdin: { contents: `export * from '${specifier}';`, resolveDir, loader: 'js', sourcefile: 'browser-entry.js' },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
      outfile: 'bundle.js',
      external,
    });
    assert.deepEqual(result.errors, []);
    const output = result.outputFiles.find((file) => file.path.endsWith('.js'));
    const meta = Object.entries(result.metafile.outputs).find(([path]) => path.endsWith('.js'))?.[1];
    assert.ok(output !== undefined && meta !== undefined, 'esbuild produced no JavaScript');
    return { code: output.text, inputs: Object.keys(result.metafile.inputs), imports: meta.imports, exports: meta.exports, warnings: result.warnings };
  } catch (error) {
    const failure = error as Partial<BuildFailure>;
    if (Array.isArray(failure.errors)) {
      const lines = failure.errors.map((message) => `${message.location?.file ?? '?'}:${message.location?.line ?? '?'}: ${message.text}`);
      assert.fail(`${specifier} does not bundle for the browser:\n${lines.join('\n')}`);
    }
    throw error;
  }
}

function assertNoNodeBuiltins(bundle: Bundle): void {
  const nodeImports = bundle.code.match(/(?:require\(|import\(|from)\s*["']node:[^"']*["']/g) ?? [];
  assert.deepEqual(nodeImports, [], 'the bundle imports node: modules');
  const builtins = bundle.imports.filter((entry) => nodeBuiltins.has(entry.path));
  assert.deepEqual(builtins, [], 'the bundle imports Node built-ins');
  const nodeInputs = bundle.inputs.filter((path) => path.startsWith('node:') || nodeBuiltins.has(path));
  assert.deepEqual(nodeInputs, []);
  const nodeWarnings = bundle.warnings.filter((warning) => /node|built-?in|require/i.test(warning.text));
  assert.deepEqual(nodeWarnings.map((warning) => warning.text), []);
}

describe('SDK browser bundle', () => {
  it('@svc/sdk resolves to dist/index.js and bundles for the browser with no Node built-in', async () => {
    const bundle = await bundleForBrowser('@svc/sdk');
    assert.ok(
      bundle.inputs.some((path) => path.endsWith('sdk/dist/index.js')),
      `the exports map should lead a browser bundler to sdk/dist/index.js; inputs: ${bundle.inputs.join(', ')}`,
    );
    assert.ok(bundle.inputs.some((path) => path.includes('node_modules/openapi-fetch/')), 'openapi-fetch is bundled');
    assert.deepEqual(bundle.imports, [], 'nothing is left external: the bundle is self-contained');
    assertNoNodeBuiltins(bundle);
    assert.ok(bundle.exports.includes('Client'), `the bundle exports Client; it exports ${bundle.exports.join(', ')}`);
  });

  it('@svc/sdk/mocks bundles for the browser with msw external and no Node built-in', async () => {
    const bundle = await bundleForBrowser('@svc/sdk/mocks', ['msw', 'msw/*']);
    assert.ok(
      bundle.inputs.some((path) => path.endsWith('sdk/dist/mocks/index.js')),
      `the exports map should lead a browser bundler to sdk/dist/mocks/index.js; inputs: ${bundle.inputs.join(', ')}`,
    );
    const outside = bundle.imports.filter((entry) => !(entry.path === 'msw' || entry.path.startsWith('msw/')));
    assert.deepEqual(outside, [], 'only msw is left to the application');
    const nodeOnlyMsw = bundle.imports.filter((entry) => entry.path === 'msw/node' || entry.path.startsWith('msw/node/'));
    assert.deepEqual(nodeOnlyMsw, [], 'the browser path of the mocks must not import msw/node');
    assert.ok(bundle.exports.length > 0, 'the mocks bundle exports something');
    assertNoNodeBuiltins(bundle);
  });
});
