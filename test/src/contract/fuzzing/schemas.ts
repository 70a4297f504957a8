/**
 * The contract's JSON Schemas, as the server loads them, and the values a fuzzer derives from
 * them: a valid value for every schema, and the malformed values the contract refuses.
 */
import { readFileSync } from 'node:fs';

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON Schema (2020-12) node of the contract. */
export type Schema = Record<string, unknown>;

/** The server's request body limit. */
export const BODY_LIMIT = 64 * 1024;

const bundled = JSON.parse(readFileSync(new URL('./generated/contract.json', import.meta.resolve('@svc/server')), 'utf8')) as {
  components: { schemas: Record<string, Schema> };
};
/** The contract's component schemas, keyed by name. */
export const componentSchemas = bundled.components.schemas;
/** The codes of the contract's `ErrorCode` enum. */
export const errorCodes = new Set((componentSchemas['ErrorCode'] as { enum: string[] }).enum);

/** Follows `$ref`s to the schema they name. */
export function deref(schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; typeof current['$ref'] === 'string'; hops += 1) {
    const name = (current['$ref'] as string).replace('#/components/schemas/', '');
    const target = componentSchemas[name];
    if (target === undefined || hops > 20) throw new Error(`cannot resolve ${String(current['$ref'])}`);
    current = target;
  }
  return current;
}

/** The alternatives of a `oneOf`/`anyOf`, resolved. */
export function branches(schema: Schema): Schema[] {
  const list = (schema['oneOf'] ?? schema['anyOf']) as Schema[] | undefined;
  return list === undefined ? [] : list.map(deref);
}

/** The JSON types a schema admits, or null when it does not constrain the type. */
export function allowedTypes(input: Schema): Set<string> | null {
  const schema = deref(input);
  const type = schema['type'];
  if (typeof type === 'string') return new Set([type]);
  if (Array.isArray(type)) return new Set(type as string[]);
  if ('const' in schema) return new Set([jsonType(schema['const'] as Json)]);
  if (Array.isArray(schema['enum'])) return new Set((schema['enum'] as Json[]).map(jsonType));
  const alternatives = branches(schema);
  if (alternatives.length > 0) {
    const union = new Set<string>();
    for (const branch of alternatives) {
      const types = allowedTypes(branch);
      if (types === null) return null;
      for (const t of types) union.add(t);
    }
    return union;
  }
  return null;
}

function jsonType(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The first schema of `schema` (or its alternatives) that describes a value of `type`. */
export function typedSchema(input: Schema, type: string): Schema | null {
  const schema = deref(input);
  const types = allowedTypes(schema);
  if (branches(schema).length > 0) {
    for (const branch of branches(schema)) {
      const found = typedSchema(branch, type);
      if (found !== null) return found;
    }
    return null;
  }
  return types !== null && types.has(type) ? schema : null;
}

/** A value `schema` accepts (the contract's own shapes; never sent as is to a mutating route). */
export function validValue(name: string, input: Schema): Json {
  const schema = deref(input);
  if ('const' in schema) return schema['const'] as Json;
  if (Array.isArray(schema['enum'])) return (schema['enum'] as Json[])[0] as Json;
  const alternatives = branches(schema);
  if (alternatives.length > 0) {
    const nonNull = alternatives.find((b) => b['type'] !== 'null') ?? (alternatives[0] as Schema);
    return validValue(name, nonNull);
  }
  const types = allowedTypes(schema);
  const type = types === null ? 'string' : ([...types].find((t) => t !== 'null') ?? 'null');
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return (schema['minimum'] as number | undefined) ?? 1;
    case 'array': {
      const items = (schema['items'] as Schema | undefined) ?? {};
      return [validValue(name, items)];
    }
    case 'object': {
      const properties = (schema['properties'] as Record<string, Schema> | undefined) ?? {};
      const required = (schema['required'] as string[] | undefined) ?? [];
      return Object.fromEntries(required.map((key) => [key, validValue(key, properties[key] ?? {})]));
    }
    default:
      if (schema['format'] === 'date-time') return '2099-01-01T00:00:00.000Z';
      if (name.includes('password')) return 'a perfectly valid long passphrase';
      if (typeof schema['pattern'] === 'string') return 'fuzz-value';
      return 'x'.repeat(Math.max(1, (schema['minLength'] as number | undefined) ?? 1));
  }
}

/** A body with every property of `schema` set to a valid value. */
export function baseBody(bodySchema: Schema): Record<string, Json> {
  const schema = deref(bodySchema);
  const properties = (schema['properties'] as Record<string, Schema> | undefined) ?? {};
  return Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, validValue(key, property)]));
}


const wrongTypeValues: readonly [string, Json][] = [
  ['string', 'fuzz'],
  ['integer', 7],
  ['number', 1.5],
  ['boolean', false],
  ['null', null],
  ['object', { nested: 'object' }],
  ['array', ['an', 'array']],
];

export function wrongTypesFor(property: Schema): [string, Json][] {
  const allowed = allowedTypes(property);
  if (allowed === null) return [];
  return wrongTypeValues.filter(([type]) => {
    if (allowed.has(type)) return false;
    if (type === 'integer' && allowed.has('number')) return false;
    return true;
  });
}

/** Malformed values of one property that the contract refuses, each with a reason. */
export function invalidValuesFor(name: string, property: Schema): [string, Json][] {
  const values: [string, Json][] = wrongTypesFor(property).map(([type, value]) => [`wrong type ${type}`, value]);
  const asString = typedSchema(property, 'string');
  if (asString !== null) {
    const maxLength = asString['maxLength'] as number | undefined;
    const minLength = asString['minLength'] as number | undefined;
    if (maxLength !== undefined) {
      values.push([`over maxLength ${maxLength}`, 'x'.repeat(maxLength + 1)]);
      values.push(['huge string', 'y'.repeat(Math.min(BODY_LIMIT - 1024, Math.max(maxLength * 4, 20_000)))]);
    }
    if (minLength !== undefined && minLength > 0) values.push(['under minLength', '']);
    if (Array.isArray(asString['enum'])) {
      const first = (asString['enum'] as string[])[0] as string;
      values.push(['invalid enum value', 'not-a-valid-enum-value']);
      if (first.toUpperCase() !== first) values.push(['enum value in the wrong case', first.toUpperCase()]);
      values.push(['enum value with a trailing space', `${first} `]);
    }
    if (asString['format'] === 'date-time') {
      for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '2026-01-32T00:00:00Z', '2026-01-01T25:61:00Z', '2026-01-01', '1700000000', '']) {
        values.push([`invalid date-time ${JSON.stringify(bad)}`, bad]);
      }
    }
    if (typeof asString['pattern'] === 'string') {
      for (const bad of ['../../etc/passwd', 'ユーザー', 'a b', 'nul\u0000byte', '<script>', '%zz']) values.push([`breaks pattern: ${JSON.stringify(bad)}`, bad]);
    }
  }
  const asArray = typedSchema(property, 'array');
  if (asArray !== null) {
    const items = deref((asArray['items'] as Schema | undefined) ?? {});
    const item = validValue(name, items);
    const maxItems = asArray['maxItems'] as number | undefined;
    if (maxItems !== undefined) values.push([`over maxItems ${maxItems}`, Array.from({ length: maxItems + 1 }, () => item)]);
    for (const [type, value] of wrongTypesFor(items)) values.push([`array item of wrong type ${type}`, [value]]);
    const itemEnum = typedSchema(items, 'string')?.['enum'];
    if (Array.isArray(itemEnum)) values.push(['array item not in the enum', ['not:a:permission']]);
    const itemObject = typedSchema(items, 'object');
    if (itemObject !== null || branches(items).length > 0) {
      values.push(['array item: empty object', [{}]]);
      // Open item schemas (OpenAI chat messages pass unknown fields on to an upstream) accept unknown properties.
      if (item !== null && typeof item === 'object' && !Array.isArray(item) && itemObject?.['additionalProperties'] !== true) {
        values.push(['array item with an unknown property', [{ ...item, unknown: true }]]);
      }
      values.push(['array item: unknown discriminator', [{ permission_type: 'everything', permission_value: null }]]);
      values.push(['array item: model_id without a value', [{ permission_type: 'model_id' }]]);
      values.push(['array item: model_type outside its enum', [{ permission_type: 'model_type', permission_value: 'LLMX' }]]);
      values.push(['array item: all with a value', [{ permission_type: 'all', permission_value: 'x' }]]);
    }
  }
  return values;
}
