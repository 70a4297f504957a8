#!/usr/bin/env node
// Runs the Python client's tests (stdlib unittest, one discovery per suite folder under python/)
// against the compiled server, with `python3` (or $PYTHON). A missing or too old Python fails the run
// with one line: CI must not pass without running them. Extra arguments go to unittest's discovery
// (e.g. `-k refresh`).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const python = process.env.PYTHON || 'python3';
const probe = spawnSync(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
if (probe.error !== undefined || probe.status !== 0) {
  console.error(`run-python-tests: ${python} was not found: the Python client's tests need Python 3.9 or later (set PYTHON to use another interpreter)`);
  process.exit(1);
}
const version = probe.stdout.trim();
const [major, minor] = version.split('.').map(Number);
if (major !== 3 || minor < 9) {
  console.error(`run-python-tests: ${python} is Python ${version}: the Python client's tests need Python 3.9 or later`);
  process.exit(1);
}
/** The suite folders under python/: the client's core, `tests_models` (the model routes) and `tests_compat` (the reference client's requests, replayed). */
const suites = ['tests', 'tests_models', 'tests_compat'];
const pythonPath = [join(root, 'python', 'src'), join(root, 'python'), process.env.PYTHONPATH].filter(Boolean).join(delimiter);
console.log(`run-python-tests: Python ${version}`);
let failed = false;
const counts = { passed: 0, failed: 0, skipped: 0 };
for (const suite of suites) {
  console.log(`run-python-tests: python/${suite}`);
  const result = spawnSync(
    python,
    ['-m', 'unittest', 'discover', '--start-directory', join(root, 'python', suite), '--top-level-directory', join(root, 'python'), ...process.argv.slice(2)],
    { stdio: ['inherit', 'inherit', 'pipe'], encoding: 'utf8', cwd: root, env: { ...process.env, PYTHONPATH: pythonPath, PYTHONDONTWRITEBYTECODE: '1' } },
  );
  // unittest reports on stderr: echo it, and count from its closing lines.
  process.stderr.write(result.stderr ?? '');
  const suiteCounts = unittestCounts(result.stderr ?? '');
  counts.passed += suiteCounts.passed;
  counts.failed += suiteCounts.failed + (result.status !== 0 && suiteCounts.failed === 0 ? 1 : 0);
  counts.skipped += suiteCounts.skipped;
  if (result.status !== 0) failed = true;
}
if (process.env.SVC_PYTHON_SUMMARY_FILE) writeFileSync(process.env.SVC_PYTHON_SUMMARY_FILE, JSON.stringify(counts));
process.exit(failed ? 1 : 0);

/** Counts from unittest's closing lines: `Ran N tests`, then `OK (skipped=S)` or `FAILED (failures=F, errors=E, skipped=S)`. */
function unittestCounts(text) {
  const ran = Number(/^Ran (\d+) tests? in /m.exec(text)?.[1] ?? 0);
  const count = (name) => Number(new RegExp(`\\b${name}=(\\d+)`).exec(/^(?:OK|FAILED).*$/m.exec(text)?.[0] ?? '')?.[1] ?? 0);
  const failures = count('failures') + count('errors') + count('unexpected successes');
  const skipped = count('skipped') + count('expected failures');
  return { passed: ran - failures - skipped, failed: failures, skipped };
}
