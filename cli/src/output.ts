/**
 * What `svc` prints: tables and short sentences for people, or with `--json` the server's objects
 * as JSON for scripts. Results go to stdout; notes meant for people go to stderr so that they never
 * mix with JSON. Tables fit the terminal's width (see {@link renderTable}).
 */
import { renderRecord, renderTable } from './table.js';

/** A column of a table: its heading and how a row shows in it. */
export interface Column<T> {
  heading: string;
  value: (row: T) => string;
  /** Never cut this column's text (an id people copy); rows become blocks when it cannot fit. */
  keep?: boolean;
}

/** Prints results as tables or JSON. */
export class Output {
  readonly json: boolean;
  /** The width tables fit, in terminal columns. */
  readonly width: number;

  constructor(json: boolean, width: number) {
    this.json = json;
    this.width = width;
  }

  /** Prints `rows` as a table, or `rows` as JSON. */
  table<T>(rows: readonly T[], columns: readonly Column<T>[]): void {
    if (this.json) return this.data(rows);
    if (rows.length === 0) {
      process.stdout.write('(none)\n');
      return;
    }
    const headings = columns.map((c) => c.heading);
    const keep = new Set(columns.flatMap((c, index) => (c.keep === true ? [index] : [])));
    process.stdout.write(renderTable(headings, rows.map((row) => columns.map((c) => c.value(row))), this.width, keep));
  }

  /** Prints one object as two columns (field, value), or as JSON. */
  record(value: unknown, fields: readonly [string, string][]): void {
    if (this.json) return this.data(value);
    process.stdout.write(renderRecord(fields, this.width));
  }

  /** Prints a sentence for people, or `value` as JSON (`{}` when absent). */
  done(sentence: string, value: unknown = {}): void {
    if (this.json) return this.data(value);
    process.stdout.write(`${sentence}\n`);
  }

  /** A note for people on stderr (never in JSON output). */
  note(sentence: string): void {
    process.stderr.write(`${sentence}\n`);
  }

  /** Prints `value` as JSON. */
  data(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }
}

/** A date-time for tables: ISO to the minute in UTC, or `never`/`-`. */
export function showTime(value: string | null, absent = '-'): string {
  return value === null ? absent : `${value.slice(0, 16).replace('T', ' ')}Z`;
}

/** A list of permissions for tables. */
export function showList(values: readonly string[] | null, absent = '(owner\'s)'): string {
  if (values === null) return absent;
  return values.length === 0 ? '(none)' : values.join(', ');
}
