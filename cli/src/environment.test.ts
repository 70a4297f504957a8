import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { DEFAULT_WIDTH, outputWidth, readCliEnvironment } from './environment.js';

describe('outputWidth', () => {
  it("is the terminal's width when stdout is a terminal, whatever COLUMNS says", () => {
    assert.equal(outputWidth(readCliEnvironment({ COLUMNS: '200' }), { isTTY: true, columns: 57 }), 57);
  });

  it('is COLUMNS when stdout is not a terminal, else 80', () => {
    assert.equal(outputWidth(readCliEnvironment({ COLUMNS: '132' }), { isTTY: false }), 132);
    assert.equal(outputWidth(readCliEnvironment({}), {}), DEFAULT_WIDTH);
    assert.equal(DEFAULT_WIDTH, 80);
  });

  it('ignores a COLUMNS that is not a sensible width', () => {
    for (const value of ['', 'wide', '-5', '12', '1e3', '99999']) {
      assert.equal(outputWidth(readCliEnvironment({ COLUMNS: value }), {}), DEFAULT_WIDTH, `COLUMNS=${value}`);
    }
  });
});
