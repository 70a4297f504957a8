/**
 * A vitest reporter that ends the run with the plain line `N passed, N failed` (`, N skipped` only
 * when some were), and writes the counts as JSON to `$SVC_TEST_SUMMARY_FILE` when that is set, so
 * `scripts/test.mjs` can add the Python suite's counts to the last line of `npm test`.
 */
import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/** Counts of one run. */
export interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[], unhandledErrors: readonly unknown[]): void {
    const counts: TestCounts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      // A file that failed to load (or whose hooks failed before any test) is one failure.
      if (module.state() === 'failed' && [...module.children.allTests()].every((test) => test.result().state !== 'failed')) counts.failed += 1;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') counts.failed += 1;
        else counts.skipped += 1;
      }
    }
    counts.failed += unhandledErrors.length;
    const file = process.env['SVC_TEST_SUMMARY_FILE'];
    if (file) writeFileSync(file, JSON.stringify(counts));
    console.log(`\n${summaryLine(counts)}`);
  }
}

/** `N passed, N failed`, with `, N skipped` only when nonzero. */
export function summaryLine(counts: TestCounts): string {
  return `${counts.passed} passed, ${counts.failed} failed${counts.skipped > 0 ? `, ${counts.skipped} skipped` : ''}`;
}
