/**
 * vitest global setup of the browser tests: builds the web UI (`vite build` into `web/dist`), the
 * static files the server serves, so the browser always sees the current sources.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Runs the web workspace's build (type check, then Vite); a failure stops the run before any test. */
export default function buildWebUi(): void {
  const result = spawnSync('npm', ['run', 'build', '--silent', '-w', 'web'], { cwd: repositoryRoot, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`the web UI build failed:\n${result.stdout}${result.stderr}`);
}
