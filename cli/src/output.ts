/**
 * What `svc` prints: tables and short sentences for people, or with `--json` the server's objects
 * as JSON for scripts. Results go to stdout; notes meant for people go to stderr so that they never
 * mix with JSON.
 */
import Table from 'cli-table3';

/** A column of a table: its heading and how a row shows in it. */
export interface Column<T> {
  heading: string;
  value: (row: T) => string;
}

/** Prints results as tables or JSON. */
export class Output {
  readonly json: boolean;

  constructor(json: boolean) {
    this.json = json;
  }

  /** Prints `rows` as a table, or `rows` as JSON. */
  table<T>(rows: readonly T[], columns: readonly Column<T>[]): void {
    if (this.json) return this.data(rows);
    if (rows.length === 0) {
      process.stdout.write('(none)\n');
      return;
    }
    const table = new Table({ head: columns.map((c) => c.heading), style: { head: [], border: [] } });
    for (const row of rows) table.push(columns.map((c) => c.value(row)));
    process.stdout.write(`${table.toString()}\n`);
  }

  /** Prints one object as two columns (field, value), or as JSON. */
  record(value: unknown, fields: readonly [string, string][]): void {
    if (this.json) return this.data(value);
    const table = new Table({ style: { head: [], border: [] } });
    for (const [name, text] of fields) table.push({ [name]: text });
    process.stdout.write(`${table.toString()}\n`);
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
