/**
 * Request bodies and queries from command options: an option left out is a field left out (under
 * `exactOptionalPropertyTypes` a field may be absent but not `undefined`).
 */

/** `fields` without the entries whose value is `undefined`. */
export function definedFields<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
