#!/usr/bin/env node
// `npm test`: every check and every test, in order, then one closing line with the counts of both
// suites, `N passed, N failed` (`, N skipped` only when some were):
//   1. the type check of every workspace (`tsc -b`, which also builds what the Python tests start);
//   2. the contract lint and the SDK package check (attw);
//   3. every TypeScript test under vitest, from source (`vitest.config.ts`);
//   4. the Python client's tests (`scripts/run-python-tests.mjs`).
// A failing check stops the run; the two suites both run, and either failing fails `npm test`.
// Arguments go to vitest (`npm test -- --project server`) and skip the Python suite.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const vitestArguments = process.argv.slice(2);
const work = mkdtempSync(join(tmpdir(), 'svc-test-summary-'));
const summaries = { vitest: join(work, 'vitest.json'), python: join(work, 'python.json') };

/** Runs a command with the terminal's output; answers whether it succeeded. */
function step(title, command, args, env = {}) {
  console.log(`\n▶ ${title}`);
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status === 0;
}

function readCounts(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

const checks = [
  ['type check (tsc -b)', 'npx', ['tsc', '-b']],
  ['contract lint (Redocly)', 'npm', ['run', '--silent', 'lint:contract']],
  ['SDK package check (attw)', 'npm', ['run', '--silent', 'check:package']],
];
for (const [title, command, args] of checks) {
  if (!step(title, command, args)) {
    console.error(`\nnpm test: the ${title} failed; no test ran.`);
    process.exit(1);
  }
}
const vitestPassed = step('TypeScript tests (vitest)', 'npx', ['vitest', 'run', ...vitestArguments], { SVC_TEST_SUMMARY_FILE: summaries.vitest });
const pythonPassed = vitestArguments.length > 0 || step('Python client tests', process.execPath, ['scripts/run-python-tests.mjs'], { SVC_PYTHON_SUMMARY_FILE: summaries.python });

const total = { passed: 0, failed: 0, skipped: 0 };
const suitePassed = { vitest: vitestPassed, python: pythonPassed };
for (const [suite, file] of Object.entries(summaries)) {
  const counts = readCounts(file);
  if (counts === null) {
    if (suite === 'python' && vitestArguments.length > 0) continue;
    total.failed += 1; // the suite did not get as far as counting: count that as a failure
    continue;
  }
  for (const key of Object.keys(total)) total[key] += counts[key];
  // A suite that failed without a failing test (a global setup that threw, say) still counts as one.
  if (!suitePassed[suite] && counts.failed === 0) total.failed += 1;
}
rmSync(work, { recursive: true, force: true });
const ok = vitestPassed && pythonPassed && total.failed === 0;
console.log(`\n${total.passed} passed, ${total.failed} failed${total.skipped > 0 ? `, ${total.skipped} skipped` : ''}`);
process.exit(ok ? 0 : 1);
