import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { formatResultsTable, recordedResults, recordResult, writeResults } from './results.js';

describe('bench results', () => {
  it('records each figure with its goal as a string and whether it is met, for every comparison', () => {
    assert.deepEqual(recordResult('ratio above', 0.96, ['>=', 0.95]), { name: 'ratio above', value: 0.96, goal: '>= 0.95', met: true });
    assert.deepEqual(recordResult('ratio below', 0.83, ['>=', 0.95]), { name: 'ratio below', value: 0.83, goal: '>= 0.95', met: false });
    assert.equal(recordResult('at the bound', 1.2, ['<=', 1.2]).met, true);
    assert.equal(recordResult('at the strict bound', 1, ['<', 1]).met, false);
    assert.equal(recordResult('strictly above', 1, ['>', 1]).met, false);
    assert.deepEqual(recordResult('no goal', 0.15, null), { name: 'no goal', value: 0.15, goal: null, met: null });
    assert.equal(recordResult('not measured', Number.NaN, ['<', 100]).met, false, 'a figure that could not be measured does not meet its goal');
    assert.equal(recordResult('rounded', 0.123456789, ['>=', 0]).value, 0.1235);
  });

  it('writes a JSON array, one result per line, and prints name / value / goal / met', async () => {
    const results = [
      { name: 'Audit on vs off, throughput', value: 0.97, goal: '>= 0.95', met: true },
      { name: 'Gateway vs direct, throughput, 0 ms upstream, 32 connections', value: 0.15, goal: null, met: null },
    ];
    const folder = await mkdtemp(join(tmpdir(), 'svc-bench-results-'));
    try {
      const path = join(folder, 'results.json');
      await writeResults(path, results);
      const text = await readFile(path, 'utf8');
      assert.deepEqual(JSON.parse(text), results);
      assert.equal(text.trim().split('\n').length, results.length + 2, 'one line per result between the brackets');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
    const table = formatResultsTable(results).split('\n');
    assert.match(table[0] as string, /^name\s+value\s+goal\s+met$/);
    assert.match(table[1] as string, /^Audit on vs off, throughput\s+0\.97\s+>= 0\.95\s+yes$/);
    assert.match(table[2] as string, /0\.15\s+-\s+-$/);
    assert.ok(recordedResults().length > 0);
  });
});
