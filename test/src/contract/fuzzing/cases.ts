/**
 * Malformed requests generated from each operation of the contract: bodies, path parameters,
 * query strings and Authorization headers, each with the answer the contract allows.
 */
import type { OperationSpec } from '@svc/server';
import type { Random } from './random.js';
import { baseBody, deref, invalidValuesFor, type Json, type Schema } from './schemas.js';


/** Where the request fails: before routing, in the global credential-in-query check, or after authentication. */
export type Stage = 'routing' | 'pre-auth' | 'after-auth';

/** One request to send, and what the contract allows in answer. */
export interface Case {
  label: string;
  spec: OperationSpec;
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  /** The whole Authorization header; undefined means the admin's token, null none. */
  authorization?: string | null;
  /** Acceptable statuses; undefined means any status below 500. */
  expect?: readonly number[];
  expectCode?: string;
  stage: Stage;
}

/** The records the path parameters point at (a sacrificial user and key). */
export interface Targets {
  userId: string;
  keyId: string;
}

function pathOf(spec: OperationSpec, targets: Targets, overrides: Record<string, string> = {}): string {
  return spec.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name in overrides) return overrides[name] as string;
    if (name === 'user_id') return targets.userId;
    if (name === 'key_id') return targets.keyId;
    // Model routes: a model and a family that do not exist, of a real type.
    if (name === 'model_uid') return 'fuzz-model';
    if (name === 'model_type') return 'LLM';
    if (name === 'model_name') return 'fuzz-family';
    throw new Error(`no value for path parameter ${name} of ${spec.operationId}`);
  });
}

function nested(depth: number, open: string, close: string, inner = '1'): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

/** Malformed bodies: wrong types, missing and unknown properties, deep nesting, non-JSON, wrong media types, oversize. */
export function bodyCases(spec: OperationSpec, targets: Targets, random: Random): Case[] {
  if (spec.body === null) return [];
  const schema = deref(spec.body);
  const properties = (schema['properties'] as Record<string, Schema> | undefined) ?? {};
  const required = (schema['required'] as string[] | undefined) ?? [];
  const base = baseBody(spec.body);
  const path = pathOf(spec, targets);
  const json = (label: string, value: unknown, expect: readonly number[] = [400]): Case => ({
    label,
    spec,
    method: spec.method,
    path,
    body: JSON.stringify(value),
    contentType: 'application/json',
    expect,
    stage: 'after-auth',
  });
  const raw = (label: string, body: string | undefined, contentType: string | undefined, expect: readonly number[]): Case => ({
    label,
    spec,
    method: spec.method,
    path,
    ...(body === undefined ? {} : { body }),
    ...(contentType === undefined ? {} : { contentType }),
    expect,
    stage: 'after-auth',
  });
  const cases: Case[] = [];
  for (const [name, property] of Object.entries(properties)) {
    for (const [reason, value] of invalidValuesFor(name, property)) cases.push(json(`${name}: ${reason}`, { ...base, [name]: value }));
  }
  for (const name of required) {
    const { [name]: _removed, ...rest } = base;
    cases.push(json(`missing required ${name}`, rest));
  }
  // A body schema that takes the empty object (the browser-session routes' `{}`) has no invalid
  // empty object: those two cases are valid requests there.
  const emptyObjectIsValid = required.length === 0 && !((schema['minProperties'] as number | undefined) ?? 0);
  if (!emptyObjectIsValid) cases.push(json('empty object', {}));
  // Closed schemas refuse unknown properties; open ones (OpenAI-style inference bodies, passed on to an upstream) accept them.
  const closed = schema['additionalProperties'] === false || schema['unevaluatedProperties'] === false;
  /** A case with an unknown property: its 400 is expected of a closed schema only (else any status below 500). */
  const withUnknown = (c: Case): Case => {
    if (closed) return c;
    const { expect: _dropped, ...rest } = c;
    return rest;
  };
  cases.push(withUnknown(json('unknown property', { ...base, unknown_property: 1 })));
  cases.push(withUnknown(json('unknown property with an empty name', { ...base, '': 'x' })));
  cases.push(raw('__proto__ property', `{"__proto__":{"admin":true},${JSON.stringify(base).slice(1)}`, 'application/json', [400]));
  cases.push(raw('constructor.prototype property', `{"constructor":{"prototype":{"admin":true}},${JSON.stringify(base).slice(1)}`, 'application/json', [400]));
  cases.push(withUnknown(raw('duplicate property', `{${JSON.stringify(base).slice(1, -1)},"unknown_property":1,"unknown_property":2}`, 'application/json', [400])));
  for (const [label, value] of [
    ['null body', null],
    ['array body', []],
    ['array of the valid body', [base]],
    ['string body', 'body'],
    ['number body', 42],
    ['boolean body', true],
  ] as const) {
    cases.push(json(label, value));
  }
  // Deep nesting must be refused, not crash the parser, the validator or the stack.
  cases.push(raw('5,000 nested objects', nested(5000, '{"a":', '}'), 'application/json', [400]));
  cases.push(raw('5,000 nested arrays', nested(5000, '[', ']'), 'application/json', [400]));
  cases.push(raw('30,000 nested arrays', nested(30_000, '[', ']'), 'application/json', [400]));
  const firstProperty = Object.keys(properties)[0] ?? 'a';
  cases.push(raw('5,000 nested objects inside a property', `{"${firstProperty}":${nested(5000, '{"a":', '}')}}`, 'application/json', [400]));
  cases.push(raw('5,000 unclosed arrays', '['.repeat(5000), 'application/json', [400]));
  // Not JSON although it says so.
  const notJson = ['{', '{"username":', 'not json', "{'single':'quotes'}", '{"a":1} trailing', 'NaN', '\u0000', '{"a":1,}', '{"a":undefined}', random.string(60)];
  // The parser drops a byte-order mark, so a BOM before {} is the empty object (see above).
  if (!emptyObjectIsValid) notJson.push('\ufeff{}');
  for (const text of notJson) {
    cases.push(raw(`not JSON: ${JSON.stringify(text.slice(0, 30))}`, text, 'application/json', [400]));
  }
  cases.push(raw('empty body with Content-Type: application/json', '', 'application/json', [400]));
  cases.push(raw('no body at all', undefined, undefined, [400]));
  // The valid body under another media type.
  const valid = JSON.stringify(base);
  cases.push(raw('text/plain', valid, 'text/plain', [415]));
  cases.push(raw('form-urlencoded', 'username=admin&password=x', 'application/x-www-form-urlencoded', [415]));
  cases.push(raw('multipart', '--b\r\nContent-Disposition: form-data; name="username"\r\n\r\nadmin\r\n--b--\r\n', 'multipart/form-data; boundary=b', [415]));
  cases.push(raw('application/xml', '<user><username>admin</username></user>', 'application/xml', [415]));
  cases.push(raw('application/octet-stream', valid, 'application/octet-stream', [415]));
  cases.push(raw('a made-up media type', valid, 'application/jsonx', [415]));
  cases.push(raw('an unparsable Content-Type', valid, ';;;', [400, 415]));
  // Over the body limit: the global 64 kB, or the operation's own x-svc-body-limit.
  const oversize = Math.max(200_000, (spec.bodyLimit ?? 0) + 100_000);
  const kB = Math.round(oversize / 1000);
  cases.push(raw(`${kB} kB JSON body`, JSON.stringify({ ...base, padding: 'p'.repeat(oversize) }), 'application/json', [413]));
  cases.push(raw(`${kB} kB text body`, 'p'.repeat(oversize), 'text/plain', [413, 415]));
  return cases;
}

/** Valid bodies with random values dropped into random properties (they may happen to be valid). */
export function randomBodyCases(spec: OperationSpec, targets: Targets, random: Random, count: number): Case[] {
  if (spec.body === null) return [];
  const properties = Object.keys((deref(spec.body)['properties'] as Record<string, Schema> | undefined) ?? {});
  const base = baseBody(spec.body);
  return Array.from({ length: count }, (_, i) => {
    const body: Record<string, Json> = { ...base };
    const mutations = 1 + random.int(3);
    for (let m = 0; m < mutations; m += 1) {
      const key = random.chance(0.85) && properties.length > 0 ? random.pick(properties) : random.string(10);
      body[key] = random.json(3);
    }
    // Random values may happen to be valid; only "never 5xx, always the error shape" holds then.
    return { label: `random body #${i}`, spec, method: spec.method, path: pathOf(spec, targets), body: JSON.stringify(body), contentType: 'application/json', stage: 'after-auth' as const };
  });
}

const badPathValues: readonly [string, string][] = [
  ['65 characters', 'a'.repeat(65)],
  ['300 characters', 'b'.repeat(300)],
  ['encoded ../..', '..%2f..'],
  ['encoded dot-dot', '%2e%2e'],
  ['encoded slash', 'a%2Fb'],
  ['unicode', encodeURIComponent('ユーザー')],
  ['emoji', encodeURIComponent('😀')],
  ['percent garbage %zz', '%zz'],
  ['lone percent', '%'],
  ['NUL', '%00'],
  ['space', '%20'],
  ['a quote', '%22'],
  ['SQL', encodeURIComponent("1' OR '1'='1")],
  ['backslash', '%5C'],
  ['valid shape, no such record', 'no-such-record'],
];

/** Path values decided by the router (bad URL, over-long parameter, a dot-dot segment the URL resolves) before authentication. */
const routingPathValues = new Set(['300 characters', 'encoded dot-dot', 'percent garbage %zz', 'lone percent']);

/** Path parameters that are too long, traverse, are not UTF-8-decodable, empty or name nothing. */
export function pathCases(spec: OperationSpec, targets: Targets): Case[] {
  if (spec.params === null) return [];
  const names = Object.keys((spec.params['properties'] as Record<string, unknown> | undefined) ?? {});
  const body = spec.body === null ? undefined : JSON.stringify(baseBody(spec.body));
  const cases: Case[] = [];
  for (const name of names) {
    for (const [label, value] of badPathValues) {
      cases.push({
        label: `path ${name}: ${label}`,
        spec,
        method: spec.method,
        path: pathOf(spec, targets, { [name]: value }),
        ...(body === undefined ? {} : { body, contentType: 'application/json' }),
        expect: [400, 404],
        stage: routingPathValues.has(label) ? 'routing' : 'after-auth',
      });
    }
    cases.push({ label: `path ${name}: empty segment`, spec, method: spec.method, path: pathOf(spec, targets, { [name]: '' }), expect: [400, 404], stage: 'routing' });
  }
  return cases;
}

/** Credentials in the query string, odd query syntax, and invalid values of the declared parameters. */
export function queryCases(spec: OperationSpec, targets: Targets): Case[] {
  const cases: Case[] = [];
  const path = pathOf(spec, targets);
  const body = spec.body === null ? {} : { body: JSON.stringify(baseBody(spec.body)), contentType: 'application/json' };
  // Credentials in the URL are refused on every route, before anything else.
  for (const name of ['access_token', 'api_key', 'token', 'jwt']) {
    cases.push({ label: `credential in query: ${name}`, spec, method: spec.method, path: `${path}?${name}=x`, ...body, expect: [400], expectCode: 'credentials_in_query', stage: 'pre-auth' });
  }
  if (spec.method === 'GET') {
    for (const query of ['unknown=1', '__proto__=x', 'constructor[prototype][admin]=1', '%zz=%zz', '&&&==&', `x=${'q'.repeat(8000)}`]) {
      cases.push({ label: `odd query ${query.slice(0, 30)}`, spec, method: 'GET', path: `${path}?${query}`, stage: 'after-auth' });
    }
  }
  const properties = (spec.query?.['properties'] as Record<string, Schema> | undefined) ?? {};
  for (const [name, property] of Object.entries(properties)) {
    const maxLength = (deref(property)['maxLength'] as number | undefined) ?? 64;
    for (const [label, value] of [
      ['empty', ''],
      ['over maxLength', 'a'.repeat(maxLength + 1)],
      ['breaks pattern', '../..'],
      ['unicode', encodeURIComponent('ユーザー')],
      ['NUL', '%00'],
    ] as const) {
      // A free-text parameter (a search filter) may legitimately hold '', '../..' or Unicode: a 400 is
      // expected only where the parameter's schema refuses the value.
      const refused = label === 'over maxLength' || schemaRefuses(deref(property), decodeURIComponent(value));
      cases.push({ label: `query ${name}: ${label}`, spec, method: spec.method, path: `${path}?${name}=${value}`, ...(refused ? { expect: [400] } : {}), stage: 'after-auth' });
    }
    cases.push({ label: `query ${name}: repeated`, spec, method: spec.method, path: `${path}?${name}=a&${name}=b`, expect: [400], stage: 'after-auth' });
    cases.push({ label: `query ${name}: percent garbage`, spec, method: spec.method, path: `${path}?${name}=%zz`, stage: 'after-auth' });
    cases.push({ label: `query ${name}: bracket syntax`, spec, method: spec.method, path: `${path}?${name}[]=a`, stage: 'after-auth' });
  }
  return cases;
}

/** Whether a query parameter with `schema` refuses the string `value`. */
function schemaRefuses(schema: Schema, value: string): boolean {
  const type = schema['type'];
  if (type === 'integer' || type === 'number' || type === 'boolean') return true;
  const allowed = schema['enum'] as unknown[] | undefined;
  if (allowed !== undefined) return !allowed.includes(value);
  const minLength = schema['minLength'] as number | undefined;
  if (minLength !== undefined && [...value].length < minLength) return true;
  const pattern = schema['pattern'] as string | undefined;
  return pattern !== undefined && !new RegExp(pattern, 'u').test(value);
}

/** Malformed and forged Authorization headers; every one for getMe, a seeded sample elsewhere. */
export function authorizationCases(spec: OperationSpec, targets: Targets, adminToken: string, random: Random): Case[] {
  if (spec.isPublic) return [];
  const flipped = adminToken.slice(0, -3) + (adminToken.at(-3) === 'A' ? 'B' : 'A') + adminToken.slice(-2);
  const headers: [string, string, number, string?][] = [
    ['"Bearer"', 'Bearer', 400, 'malformed_authorization_header'],
    ['"Bearer " (one space)', 'Bearer ', 400, 'malformed_authorization_header'],
    ['"Bearer  " (two spaces)', 'Bearer  ', 400, 'malformed_authorization_header'],
    ['Basic scheme', 'Basic x', 400, 'malformed_authorization_header'],
    ['Basic with credentials', `Basic ${Buffer.from('admin:correct horse battery staple').toString('base64')}`, 400, 'malformed_authorization_header'],
    ['unknown scheme', 'Token abc', 400, 'malformed_authorization_header'],
    ['two words', 'Bearer a b', 400, 'malformed_authorization_header'],
    ['two credentials joined', `Bearer ${adminToken}, Bearer ${adminToken}`, 400, 'malformed_authorization_header'],
    ['a comma', ',', 400, 'malformed_authorization_header'],
    ['latin-1 token', 'Bearer caf\u00e9', 400, 'malformed_authorization_header'],
    ['10 kB token', `Bearer ${'t'.repeat(10_240)}`, 401, 'invalid_token'],
    ['bare sk- prefix', 'Bearer sk-', 401, 'invalid_api_key'],
    ['key with a broken checksum', `Bearer sk-svc-${'A'.repeat(49)}`, 401, 'invalid_api_key'],
    ['legacy-shaped key nobody holds', 'Bearer sk-abcdefghijklm', 401, 'invalid_api_key'],
    ['alg none JWT', 'Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJ4In0.', 401, 'invalid_token'],
    ['admin token with a flipped character', `Bearer ${flipped}`, 401],
    ['admin token with a suffix', `Bearer ${adminToken}x`, 401],
    ['JWT with three empty parts', 'Bearer ..', 401],
  ];
  const selected = spec.operationId === 'getMe' ? headers : headers.filter(() => random.chance(0.3));
  const body = spec.body === null ? {} : { body: JSON.stringify(baseBody(spec.body)), contentType: 'application/json' };
  return selected.map(([label, authorization, status, code]) => ({
    label: `Authorization: ${label}`,
    spec,
    method: spec.method,
    path: pathOf(spec, targets),
    ...body,
    authorization,
    expect: [status],
    ...(code === undefined ? {} : { expectCode: code }),
    stage: 'after-auth' as const,
  }));
}

/**
 * The same case sent without credentials. A protected route answers 401 before it reads the body,
 * the path parameters or the query; only what fails before authentication keeps its answer.
 */
export function anonymous(testCase: Case): Case {
  const { expect, expectCode, ...rest } = testCase;
  const label = `anonymous, ${testCase.label}`;
  if (testCase.spec.isPublic || testCase.stage === 'pre-auth') return { ...testCase, label, authorization: null };
  if (testCase.stage === 'routing') return { ...rest, label, authorization: null, ...(expect === undefined ? {} : { expect: [...expect, 401] }) };
  return { ...rest, label, authorization: null, expect: [401], expectCode: 'missing_credentials' };
}
