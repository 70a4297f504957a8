#!/usr/bin/env node
// Marks the compiled entry points of every workspace's `bin` map executable (tsc writes them 0644),
// so the links npm puts in node_modules/.bin (`npx svc`, `npx svc-local`, …) run.
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = JSON.parse(readFileSync('package.json', 'utf8'));
for (const workspace of root.workspaces) {
  const manifest = join(workspace, 'package.json');
  if (!existsSync(manifest)) continue;
  const { bin = {} } = JSON.parse(readFileSync(manifest, 'utf8'));
  for (const target of Object.values(bin)) {
    const path = join(dirname(manifest), target);
    if (existsSync(path)) chmodSync(path, 0o755);
  }
}
