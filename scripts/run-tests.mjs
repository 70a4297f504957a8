#!/usr/bin/env node
// Runs every compiled test file (`*.test.js` under each package's dist/) with Node's test runner.
// TypeScript is compiled by `tsc -b` first (the `test` script does that), so tests run the same
// JavaScript that ships.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const packages = ['server', 'sdk', 'cli', 'test', 'bench'];
const files = [];
function collect(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) collect(path);
    else if (entry.endsWith('.test.js')) files.push(path);
  }
}
for (const pkg of packages) collect(join(pkg, 'dist'));
const only = process.argv.slice(2);
const selected = only.length > 0 ? files.filter((f) => only.some((o) => f.includes(o))) : files;
if (selected.length === 0) {
  console.error('run-tests: no test files found; did `tsc -b` run?');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--enable-source-maps', '--test', '--test-reporter=spec', '--test-concurrency=2', ...selected.sort()],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
