import assert from 'node:assert/strict';
import stringWidth from 'string-width';
import { describe, it } from 'vitest';
import { renderRecord, renderTable, wrap } from './table.js';

const headings = ['ID', 'NAME', 'OWNER', 'PERMISSIONS', 'MODELS'];
const rows = [
  ['0192f7a5-0d3c-7e21-8b1a-2f3e4d5c6b7a', 'laptop', 'admin', 'models:list, models:read, keys:create', 'all'],
  ['0192f7a5-0d3c-7e21-8b1a-2f3e4d5c6b7b', 'ci runner for the nightly build', 'renée', "(owner's)", 'echo, type:embedding'],
];

const widest = (text: string) => Math.max(...text.split('\n').map((line) => stringWidth(line)));

describe('renderTable', () => {
  it('uses the natural widths, two spaces apart, when they fit', () => {
    assert.equal(renderTable(['ID', 'NAME'], [['1', 'laptop'], ['22', 'ci']], 80), 'ID  NAME\n1   laptop\n22  ci\n');
  });

  it('never draws a rule between rows', () => {
    assert.doesNotMatch(renderTable(headings, rows, 200), /[─-]{3,}|\+-/);
  });

  for (const width of [40, 60, 80, 100, 120, 200]) {
    it(`fits ${width} columns and loses no text`, () => {
      const text = renderTable(headings, rows, width);
      assert.ok(widest(text) <= width, `a line is wider than ${width}:\n${text}`);
      const letters = (value: string) => value.replace(/\s+/g, '');
      const blocks = text.includes('\n\n'); // too narrow for columns: one block per row, headings repeated
      const everything = letters([...(blocks ? rows.flatMap(() => headings) : headings), ...rows.flat()].join(''));
      const shown = letters(text);
      for (const cell of [...headings, ...rows.flat()]) {
        for (const word of cell.split(/\s+/)) assert.ok(shown.includes(letters(word).slice(0, 6)), `"${word}" is missing at ${width}:\n${text}`);
      }
      assert.equal([...shown].sort().join(''), [...everything].sort().join(''), 'every character is shown exactly once');
    });
  }

  it('wraps the columns that need the most room, and keeps narrow ones whole', () => {
    const text = renderTable(headings, rows, 80);
    const lines = text.split('\n');
    assert.match(lines[0] ?? '', /^ID\s+NAME\s+OWNER\s+PERMISSIONS\s+MODELS$/);
    assert.ok(lines.some((line) => /\badmin\b/.test(line)), 'OWNER is not wrapped');
  });

  it('prints each row as a block of heading-value lines when the columns cannot fit', () => {
    const text = renderTable(headings, rows, 24);
    assert.ok(widest(text) <= 24, text);
    assert.match(text, /^ID {11}0192f7a5-0d/m);
    assert.match(text, /^NAME {9}laptop$/m);
    assert.equal(text.split('\n\n').length, 2, 'one block per row, separated by an empty line');
  });

  it('counts wide characters by the columns they take', () => {
    const text = renderTable(['USER', 'NOTE'], [['日本語のユーザー名', 'x']], 18);
    assert.ok(widest(text) <= 18, text);
  });
});

describe('wrap', () => {
  it('breaks at spaces, and cuts a word longer than the line', () => {
    assert.deepEqual(wrap('models:list, models:read', 13), ['models:list,', 'models:read']);
    assert.deepEqual(wrap('0192f7a5-0d3c-7e21', 8), ['0192f7a5', '-0d3c-7e', '21']);
    assert.deepEqual(wrap('', 8), ['']);
  });
});

describe('renderRecord', () => {
  it('aligns the values and wraps them within the width', () => {
    const text = renderRecord(
      [
        ['username', 'admin'],
        ['permissions', 'admin, models:list, models:read, models:write, keys:create, keys:manage'],
      ],
      40,
    );
    assert.ok(widest(text) <= 40, text);
    assert.match(text, /^username {5}admin$/m);
    assert.match(text, /^permissions {2}admin, models:list,/m);
    assert.match(text, /^ {13}\S/m, 'wrapped lines continue under the value');
  });
});
