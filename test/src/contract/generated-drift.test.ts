/**
 * The committed generated files (TypeScript types and the bundled contract the server validates
 * against) must be exactly what openapi.yaml produces now: `generate.mjs --check` writes nothing and
 * exits 1 on any drift.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

// This file runs from test/dist/contract/; the repository root is three levels up.
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const generator = 'openapi/scripts/generate.mjs';

describe('generated files', () => {
  it('match openapi.yaml (generate.mjs --check exits 0)', () => {
    assert.ok(existsSync(`${repoRoot}${generator}`), `expected ${generator} under ${repoRoot}`);
    const result = spawnSync(process.execPath, [generator, '--check'], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
    assert.equal(result.error, undefined, `could not run the generator: ${String(result.error)}`);
    assert.equal(result.status, 0, `generated files drifted from openapi.yaml:\n${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /generated files match the contract/);
  });
});
