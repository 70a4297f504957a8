import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

const routesDirectory = fileURLToPath(new URL('.', import.meta.url));
/** Every module specifier a file imports or re-exports (static and dynamic). */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

describe('route modules', () => {
  it('never import the storage: handlers reach state only through the services (tests may open a database)', () => {
    const files = readdirSync(routesDirectory).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
    assert.ok(files.length > 10, `found only ${files.length} route modules`);
    const offenders: string[] = [];
    for (const file of files) {
      for (const match of readFileSync(routesDirectory + file, 'utf8').matchAll(SPECIFIER)) {
        const specifier = match[1] as string;
        if (/(^|\/)storage(\/|$)/.test(specifier) || specifier === 'better-sqlite3' || specifier === 'pg') offenders.push(`${file} imports ${specifier}`);
      }
    }
    assert.deepEqual(offenders, []);
  });

  it('the scan sees the imports it looks for', () => {
    const sample = "import type { Storage } from '../storage/port/index.js';\nconst m = await import('../storage/sqlite/sqlite-storage.js');";
    assert.deepEqual([...sample.matchAll(SPECIFIER)].map((match) => match[1]), ['../storage/port/index.js', '../storage/sqlite/sqlite-storage.js']);
  });
});
