/**
 * Plain-text tables that fit a terminal width: columns two spaces apart, a heading row, no rules.
 * When the natural widths do not fit, the columns that need the most room give it up first and
 * their text wraps (at spaces, else anywhere); when even that cannot fit every column, each row is
 * printed as a block of `HEADING  value` lines instead. Widths are display widths (wide and
 * combining characters counted as the terminal shows them).
 */
import stringWidth from 'string-width';

/** Between two columns. */
const GAP = '  ';
/** A column narrower than this wraps too much to read, unless its content is narrower. */
const MIN_COLUMN_WIDTH = 6;
/** Words up to this long are kept whole when the other columns can make room. */
const MAX_WHOLE_WORD = 16;

/**
 * Lays out `rows` (one string per column) under `headings` within `width` columns. The columns in
 * `keep` (indexes) are never cut, e.g. ids people copy: when they cannot fit whole, the rows are
 * printed as blocks.
 *
 * @example
 * renderTable(['ID', 'NAME'], [['1', 'laptop']], 80); // 'ID  NAME\n1   laptop\n'
 */
export function renderTable(headings: readonly string[], rows: readonly (readonly string[])[], width: number, keep: ReadonlySet<number> = new Set()): string {
  const widths = columnWidths(headings, rows, width, keep);
  if (widths === null) return renderBlocks(headings, rows, width);
  return [headings, ...rows].map((row) => renderRow(row, widths)).join('');
}

/**
 * Lays out one record as `name  value` lines within `width` columns, the values wrapped.
 *
 * @example
 * renderRecord([['username', 'admin']], 80); // 'username  admin\n'
 */
export function renderRecord(fields: readonly (readonly [string, string])[], width: number): string {
  return renderBlock(fields.map(([name]) => name), fields.map(([, value]) => value), width);
}

/** The width of each column, or null when the columns cannot fit even at their narrowest. */
function columnWidths(headings: readonly string[], rows: readonly (readonly string[])[], width: number, keep: ReadonlySet<number>): number[] | null {
  const available = width - GAP.length * (headings.length - 1);
  const cells = (column: number) => rows.map((row) => row[column] ?? '');
  const natural = headings.map((heading, column) => Math.max(textWidth(heading), ...cells(column).map(textWidth)));
  if (sum(natural) <= available) return natural;
  // Each column wants its longest word whole (up to a length); when that is too wide, the columns
  // with the longest words give up room first, down to their floor (headings and kept columns whole).
  const floor = headings.map((heading, column) => (keep.has(column) ? (natural[column] as number) : Math.min(natural[column] as number, Math.max(longestWord(heading), MIN_COLUMN_WIDTH))));
  const minimum = headings.map((heading, column) =>
    Math.max(floor[column] as number, Math.min(natural[column] as number, Math.max(longestWord(heading), Math.min(MAX_WHOLE_WORD, Math.max(0, ...cells(column).map(longestWord)))))),
  );
  for (let excess = sum(minimum) - available; excess > 0; excess -= 1) {
    let widest = -1;
    for (let column = 0; column < minimum.length; column += 1) {
      if ((minimum[column] as number) > (floor[column] as number) && (widest < 0 || (minimum[column] as number) > (minimum[widest] as number))) widest = column;
    }
    if (widest < 0) return null;
    minimum[widest] = (minimum[widest] as number) - 1;
  }
  return share(minimum, natural, available);
}

/**
 * Widens the columns from `minimum` towards `natural` within `available`: the spare room goes one
 * column at a time to the narrowest column still short of its natural width, so narrow columns
 * end up whole and the wide ones share the rest equally.
 */
function share(minimum: readonly number[], natural: readonly number[], available: number): number[] {
  const widths = [...minimum];
  for (let spare = available - sum(widths); spare > 0; spare -= 1) {
    let narrowest = -1;
    for (let column = 0; column < widths.length; column += 1) {
      if ((widths[column] as number) < (natural[column] as number) && (narrowest < 0 || (widths[column] as number) < (widths[narrowest] as number))) narrowest = column;
    }
    if (narrowest < 0) break;
    widths[narrowest] = (widths[narrowest] as number) + 1;
  }
  return widths;
}

/** One row: each cell wrapped to its column, the lines padded and joined. */
function renderRow(cells: readonly string[], widths: readonly number[]): string {
  const wrapped = widths.map((columnWidth, column) => wrap(cells[column] ?? '', columnWidth));
  const height = Math.max(...wrapped.map((lines) => lines.length));
  let text = '';
  for (let line = 0; line < height; line += 1) {
    text += `${wrapped.map((lines, column) => pad(lines[line] ?? '', widths[column] as number)).join(GAP).trimEnd()}\n`;
  }
  return text;
}

/** Every row as a block of `HEADING  value` lines, blocks separated by an empty line. */
function renderBlocks(headings: readonly string[], rows: readonly (readonly string[])[], width: number): string {
  return rows.map((row) => renderBlock(headings, headings.map((_, column) => row[column] ?? ''), width)).join('\n');
}

function renderBlock(names: readonly string[], values: readonly string[], width: number): string {
  const nameWidth = Math.max(...names.map(textWidth));
  const valueWidth = Math.max(MIN_COLUMN_WIDTH, width - nameWidth - GAP.length);
  return names.map((name, index) => renderRow([name, values[index] ?? ''], [nameWidth, valueWidth])).join('');
}

/**
 * `text` as lines of at most `width` columns: words (separated by spaces) are kept whole where they
 * fit, and a word longer than a line is cut.
 */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/ +/).filter((part) => part !== '')) {
      const candidate = line === '' ? word : `${line} ${word}`;
      if (textWidth(candidate) <= width) {
        line = candidate;
        continue;
      }
      if (line !== '') lines.push(line);
      line = '';
      for (const piece of cut(word, width)) {
        if (line !== '') lines.push(line);
        line = piece;
      }
    }
    lines.push(line);
  }
  return lines;
}

/** `word` cut into pieces of at most `width` columns, never inside a character. */
function cut(word: string, width: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  for (const { segment } of new Intl.Segmenter().segment(word)) {
    if (piece !== '' && textWidth(piece + segment) > width) {
      pieces.push(piece);
      piece = '';
    }
    piece += segment;
  }
  pieces.push(piece);
  return pieces;
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - textWidth(text)));
}

/** The display width of the widest line of `text`. */
function textWidth(text: string): number {
  return Math.max(0, ...text.split('\n').map((line) => stringWidth(line)));
}

function longestWord(text: string): number {
  return Math.max(0, ...text.split(/\s+/).map((word) => stringWidth(word)));
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
