/**
 * Prepared statements, prepared once per connection and SQL text. A store serves either the reader
 * and writer connections (root level) or the writer alone (inside a transaction), so it asks for its
 * statements by connection.
 */
import type { Statement } from 'better-sqlite3';
import type { Database } from './database.js';

const cache = new WeakMap<Database, Map<string, Statement>>();

/** The statement for `sql` on `db`, prepared on first use. */
export function statement<Parameters extends unknown[] = unknown[], Row = unknown>(db: Database, sql: string): Statement<Parameters, Row> {
  let statements = cache.get(db);
  if (statements === undefined) {
    statements = new Map();
    cache.set(db, statements);
  }
  let prepared = statements.get(sql);
  if (prepared === undefined) {
    prepared = db.prepare(sql);
    statements.set(sql, prepared);
  }
  return prepared as unknown as Statement<Parameters, Row>;
}

/** The two connections a store uses and the gate its writes pass. */
export interface Connections {
  /** Reads: the reader connection at root level, the writer inside a transaction. */
  readonly read: Database;
  readonly write: Database;
  readonly gate: import('./writer-gate.js').WriterGate;
}
