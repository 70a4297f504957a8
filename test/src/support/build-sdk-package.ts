/**
 * vitest global setup of the cross-package tests: builds the SDK package (`tsc -b sdk`, incremental)
 * before the tests that exercise it as users install it — the browser bundle through its exports
 * map, and the guide's examples run with plain `node`. Every other test runs the sources.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Runs `tsc -b sdk`; a type error fails the run before any test starts. */
export default function buildSdkPackage(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-b', 'sdk'], { cwd: repositoryRoot, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tsc -b sdk failed:\n${result.stdout}${result.stderr}`);
}
