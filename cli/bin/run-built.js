/**
 * The entry files beside this one are what npm links into `node_modules/.bin`: committed, so they
 * exist when npm links them on the first `npm install`, before any build. Each runs its compiled
 * entry point in `dist/` (written by `npm run build`), or says in one line that it is not built.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Imports the compiled entry point `relativeEntry` (relative to this folder) of the tool `tool`;
 * when it is missing, prints `<tool>: not built yet …` on stderr and exits 1.
 *
 * @param {string} tool - the command's name, e.g. `svc-local`
 * @param {string} relativeEntry - e.g. `../dist/bin/svc-local.js`
 * @returns {Promise<void>}
 */
export async function runBuilt(tool, relativeEntry) {
  const entry = new URL(relativeEntry, import.meta.url);
  if (!existsSync(entry)) {
    process.stderr.write(`${tool}: not built yet (${fileURLToPath(entry)} is missing); run npm run build in the repository root\n`);
    process.exit(1);
  }
  await import(entry.href);
}
