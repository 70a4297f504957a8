/**
 * The coded form of an audit record on PostgreSQL (migration 045): the groups of fields a record
 * shares with many others (its shape, its caller, its key) interned as rows of `audit_tuples`, client
 * IPs other than dotted-quad IPv4 interned in `audit_strings`, and the row of `audit_entries` that
 * holds their ids.
 * Interning runs under the chain head's lock (appends and imports take it first), so two writers
 * never add the same string or tuple.
 */
import type { AuditRecord } from '../port/index.js';
import { codedValue, codeOf, InternedStrings, ipv4Number, isLowercaseUuid, type Codes } from '../audit-codes.js';
import { callerMembers, keyMembers, shapeMembers } from '../migrations/045-postgres-audit-tuples.js';
import type { Executor } from './executor.js';

/** The groups of fields interned as `audit_tuples` rows, by the `audit_entries` column that holds the tuple's id. */
export const tupleGroups = { shape: shapeMembers, caller: callerMembers, api_key: keyMembers } as const;
/** A column of `audit_entries` holding a tuple id. */
export type TupleColumn = keyof typeof tupleGroups;

/** The position (1-based, as PostgreSQL indexes arrays) of `field` in its tuple, and the tuple's column. */
export function tupleMember(field: keyof AuditRecord): { column: TupleColumn; position: number } {
  for (const [column, members] of Object.entries(tupleGroups) as [TupleColumn, readonly string[]][]) {
    const index = members.indexOf(field);
    if (index >= 0) return { column, position: index + 1 };
  }
  throw new Error(`not a tuple member: ${field}`);
}

/**
 * The columns of `audit_entries` (migration 045) with the array type each travels in (`unnest`):
 * tuple and string ids, the latency in microseconds when exact, the request id as a uuid when it is
 * one, `hash` sent in hex and stored as 32 bytes.
 */
export const entryColumns: readonly (readonly [string, string])[] = [
  ['id', 'bigint'],
  ['timestamp', 'bigint'],
  ['shape', 'integer'],
  ['caller', 'integer'],
  ['api_key', 'integer'],
  ['client_ipv4', 'integer'],
  ['latency_us', 'integer'],
  ['request_uuid', 'uuid'],
  ['hash', 'text'],
  ['latency_ms', 'double precision'],
  ['client_ip', 'integer'],
  ['request_text', 'text'],
  ['details', 'text'],
];
const entryNames = entryColumns.map(([name]) => name);
/** The statement appending rows of {@link entryColumns}, one array per column. */
export const INSERT_ENTRIES =
  `INSERT INTO audit_entries (${entryNames.join(', ')}) ` +
  `SELECT ${entryNames.map((name) => (name === 'hash' ? "decode(r.hash, 'hex')" : `r.${name}`)).join(', ')} ` +
  `FROM unnest(${entryColumns.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ')}) AS r (${entryNames.join(', ')})`;

const MAX_LATENCY_US = 2_000_000_000;

/** A latency in whole microseconds when that reads back as the same number (`n / 1000`), else null (-0 included). */
export function latencyMicroseconds(latencyMs: number | null): number | null {
  if (latencyMs === null || Object.is(latencyMs, -0)) return null;
  const microseconds = Math.round(latencyMs * 1000);
  return Math.abs(microseconds) < MAX_LATENCY_US && Object.is(microseconds / 1000, latencyMs) ? microseconds : null;
}

/** The ids of a batch: strings (`value → id`) and tuples (by {@link tupleKey}). */
export interface BatchCodes {
  strings: Codes;
  tuples: ReadonlyMap<string, number>;
}

/** A tuple's members: the group's fields of `record` as text (the HTTP status in decimal). */
export function tupleMembers(record: AuditRecord, column: TupleColumn): (string | null)[] {
  return tupleGroups[column].map((field) => {
    const value = record[field];
    return value === null ? null : String(value);
  });
}

/** The key a tuple is found and cached by (its members in JSON), or null when every member is null (no tuple). */
export function tupleKey(record: AuditRecord, column: TupleColumn): string | null {
  return keyOfMembers(tupleMembers(record, column));
}

function keyOfMembers(members: readonly (string | null)[]): string | null {
  return members.every((value) => value === null) ? null : JSON.stringify(members);
}

/** The keys of a record's tuples, by column (computed once per record, for interning and for its row). */
export type RecordTupleKeys = Readonly<Record<TupleColumn, string | null>>;

/** The values of one record for {@link entryColumns}, its tuples given by their keys ({@link internRecords}). */
export function entryRow(codes: BatchCodes, id: number, record: AuditRecord, keys: RecordTupleKeys, hash: string): unknown[] {
  const uuid = isLowercaseUuid(record.request_id);
  const microseconds = latencyMicroseconds(record.latency_ms);
  const tupleId = (column: TupleColumn): number | null => {
    const key = keys[column];
    return key === null ? null : (codes.tuples.get(key) ?? missingTuple());
  };
  const values: Record<string, unknown> = {
    id,
    timestamp: record.timestamp,
    shape: tupleId('shape'),
    caller: tupleId('caller'),
    api_key: tupleId('api_key'),
    client_ipv4: ipv4Number(record.client_ip),
    latency_us: microseconds,
    request_uuid: uuid ? record.request_id : null,
    hash,
    latency_ms: microseconds === null ? record.latency_ms : null,
    client_ip: codeOf(codes.strings, codedValue(record, 'client_ip')),
    request_text: uuid ? null : record.request_id,
    details: record.details,
  };
  return entryNames.map((name) => values[name]);
}

function missingTuple(): never {
  throw new Error('audit tuple was not interned');
}

/** Inserts rows through `statement` (built on {@link INSERT_ENTRIES}), one array per column. */
export async function insertEntries(sql: Executor, statement: string, rows: readonly unknown[][]): Promise<number> {
  if (rows.length === 0) return 0;
  return sql.run(statement, entryNames.map((_, index) => rows.map((row) => row[index])));
}

/** What interning a batch found: its codes, each record's tuple keys (in order), and the ids learned from the database (for the caches, once committed). */
export interface Interned {
  codes: BatchCodes;
  tupleKeys: RecordTupleKeys[];
  learnedStrings: Map<string, number>;
  learnedTuples: Map<string, number>;
}

/** The caches of one writer: ids of strings and of tuples it has interned (committed ones only). */
export interface InternCaches {
  strings: InternedStrings;
  tuples: InternedStrings;
}

/** How interning finds and adds the values of one dictionary. */
interface Dictionary {
  find(values: string[]): Promise<{ id: number; value: string }[]>;
  add(values: string[]): Promise<{ id: number; value: string }[]>;
}

/** `audit_strings`: a string is its own key. */
const stringDictionary = (sql: Executor): Dictionary => ({
  find: (values) => sql.rows<{ id: number; value: string }>('SELECT s.id, s.value FROM unnest($1::text[]) AS v (value) JOIN audit_strings s ON s.value = v.value', [values]),
  add: (values) => sql.rows<{ id: number; value: string }>('INSERT INTO audit_strings (value) SELECT unnest($1::text[]) RETURNING id, value', [values]),
});

/**
 * Tuples travel as one flat `text[]` of every member (`$1`) with where each starts and ends (`$2`,
 * `$3`), and are matched back by position: no JSON, and no text read back and compared, so a value
 * the database spells differently (a lone surrogate becomes U+FFFD) cannot fail a batch.
 */
function flattened(keys: readonly string[], members: ReadonlyMap<string, (string | null)[]>): unknown[] {
  const flat: (string | null)[] = [];
  const starts: number[] = [];
  const finishes: number[] = [];
  for (const key of keys) {
    starts.push(flat.length + 1);
    flat.push(...(members.get(key) ?? []));
    finishes.push(flat.length);
  }
  return [flat, starts, finishes];
}

/** `audit_tuples`: tuples found by their members; `negative` says which new ones get a negative id. */
const tupleDictionary = (sql: Executor, wanted: ReadonlyMap<string, { members: (string | null)[]; negative: boolean }>): Dictionary => {
  const members = new Map([...wanted].map(([key, tuple]) => [key, tuple.members]));
  return {
    async find(keys) {
      const found = await sql.rows<{ id: number; n: number }>(
        'SELECT t.id, v.n::integer AS n FROM unnest($2::integer[], $3::integer[]) WITH ORDINALITY AS v (start, finish, n) ' +
          'JOIN audit_tuples t ON t.members = ($1::text[])[v.start:v.finish]',
        flattened(keys, members),
      );
      return found.map(({ id, n }) => ({ id, value: keys[n - 1] as string }));
    },
    async add(keys) {
      const ids = (await sql.rows<{ id: number }>("SELECT nextval('audit_tuples_id')::integer AS id FROM generate_series(1, $1)", [keys.length])).map(
        ({ id }, index) => (wanted.get(keys[index] as string)?.negative === true ? -id : id),
      );
      await sql.run(
        'INSERT INTO audit_tuples (id, members) SELECT v.id, ($1::text[])[v.start:v.finish] FROM unnest($2::integer[], $3::integer[], $4::integer[]) AS v (start, finish, id)',
        [...flattened(keys, members), ids],
      );
      return ids.map((id, index) => ({ id, value: keys[index] as string }));
    },
  };
};

/** The ids of every string and tuple of `records`, adding those the database lacks. */
export async function internRecords(sql: Executor, records: readonly AuditRecord[], caches: InternCaches | null): Promise<Interned> {
  const clientIps = new Set(records.map((record) => codedValue(record, 'client_ip')).filter((value) => value !== null));
  const strings = await internValues(stringDictionary(sql), [...clientIps], caches?.strings ?? null);
  const wanted = new Map<string, { members: (string | null)[]; negative: boolean }>();
  const tupleKeys = records.map((record) => {
    const keys = { shape: null, caller: null, api_key: null } as Record<TupleColumn, string | null>;
    for (const column of Object.keys(tupleGroups) as TupleColumn[]) {
      const members = tupleMembers(record, column);
      const key = keyOfMembers(members);
      keys[column] = key;
      // A shape whose status is not a success gets a negative id (the partial index `shape < 0`).
      if (key !== null) wanted.set(key, { members, negative: column === 'shape' && record.status !== 'success' });
    }
    return keys;
  });
  const tuples = await internValues(tupleDictionary(sql, wanted), [...wanted.keys()], caches?.tuples ?? null);
  return { codes: { strings: strings.codes, tuples: tuples.codes }, tupleKeys, learnedStrings: strings.learned, learnedTuples: tuples.learned };
}

/** Finds the ids of `values` (cache, then database) and adds the missing ones. */
async function internValues(
  dictionary: Dictionary,
  values: readonly string[],
  cache: InternedStrings | null,
): Promise<{ codes: Map<string, number>; learned: Map<string, number> }> {
  const codes = new Map<string, number>();
  const learned = new Map<string, number>();
  const missing: string[] = [];
  for (const value of values) {
    const cached = cache?.get(value);
    if (cached === undefined) missing.push(value);
    else codes.set(value, cached);
  }
  if (missing.length === 0) return { codes, learned };
  for (const { id, value } of await dictionary.find(missing)) learned.set(value, id);
  const absent = missing.filter((value) => !learned.has(value));
  if (absent.length > 0) for (const { id, value } of await dictionary.add(absent)) learned.set(value, id);
  for (const [value, id] of learned) codes.set(value, id);
  return { codes, learned };
}
