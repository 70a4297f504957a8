/**
 * `@svc/sdk/mocks`: msw request handlers that play svc by the contract, so an app can test against a
 * fake svc in-process (`setupServer` in Node, `setupWorker` in a browser). Every operation answers its
 * documented success status with the contract's example (streamed as server-sent events for a chat or
 * text completion asked for with `stream: true`, JSON Lines for the audit export with `format=jsonl`);
 * operations that need credentials answer 401
 * without `Authorization: Bearer …`; a body that is not a JSON object answers 400. No Node built-in
 * is imported: the module runs wherever msw runs.
 */
import { http, HttpResponse, type HttpHandler, type HttpResponseResolver } from 'msw';
import { readEnvironment } from '../environment.js';
import { SvcError, type ErrorBody, type ErrorCode } from '../errors.js';
import { operationExamples, type OperationExample } from '../generated/examples.js';
import type { operations } from '../generated/openapi.js';
import { auditExportAnswer, streamedAnswer } from './streamed-answers.js';

/** The `operationId` of an operation of the contract (`getMe`, `createApiKey`, …). */
export type OperationId = keyof operations;

/** An msw resolver that answers one operation in place of its contract example. */
export type MockResolver = HttpResponseResolver;

/** What {@link createHandlers} can be told. */
export interface MockOptions {
  /**
   * The svc base URL the app calls, e.g. `http://svc.test`. Give the same one to the `Client`.
   * @default process.env.SVC_ENDPOINT where it exists; otherwise paths relative to the page's origin (browsers)
   */
  baseUrl?: string;
  /**
   * Answers that replace the contract example of some operations, by `operationId`. They run after
   * the credentials and body checks; one that returns `undefined` falls back to the example.
   */
  overrides?: Partial<Record<OperationId, MockResolver>>;
}

const BEARER = /^Bearer +[\x21-\x7e]+ *$/i;
const TOKEN_ERRORS = new Set<ErrorCode>(['invalid_token', 'token_expired', 'invalid_api_key', 'api_key_expired', 'api_key_disabled', 'account_disabled']);

/**
 * Builds one msw handler per operation of the contract.
 *
 * @throws {SvcError} when no base URL is given and none can be inferred, or an override names no operation.
 * @example
 * import { setupServer } from 'msw/node';
 * import { Client } from '@svc/sdk';
 * import { createHandlers, errorResponse } from '@svc/sdk/mocks';
 *
 * const baseUrl = 'http://svc.test';
 * const server = setupServer(...createHandlers({ baseUrl }));
 * server.listen();
 * const client = new Client({ baseUrl, apiKey: 'sk-svc-test' });
 * await client.auth.me(); // the contract's example of GET /v1/auth/me
 * server.use(...createHandlers({ baseUrl, overrides: { getMe: () => errorResponse(401, 'token_expired', 'Token expired') } }));
 */
export function createHandlers(options: MockOptions = {}): HttpHandler[] {
  const prefix = resolvePrefix(options.baseUrl);
  const overrides: Partial<Record<string, MockResolver>> = options.overrides ?? {};
  const known = new Set(operationExamples.map((operation) => operation.operationId));
  for (const name of Object.keys(overrides)) {
    if (!known.has(name)) throw new SvcError(`createHandlers: no operation "${name}" in the contract to override`);
  }
  return operationExamples.map((operation) => handlerFor(operation, prefix, overrides[operation.operationId]));
}

/**
 * An error answer in the contract's shape (`detail` and `error: { message, type, code }`), with
 * `WWW-Authenticate` on a 401: what an override returns to simulate a failure.
 *
 * @example
 * server.use(http.post('http://svc.test/v1/admin/users', () => errorResponse(409, 'username_taken', 'A user named alice already exists')));
 */
export function errorResponse(status: number, code: ErrorCode, message: string): HttpResponse<ErrorBody> {
  const body: ErrorBody = { detail: message, error: { message, type: errorTypeFor(status), code } };
  const headers = new Headers();
  if (status === 401) headers.set('www-authenticate', TOKEN_ERRORS.has(code) ? 'Bearer error="invalid_token"' : 'Bearer');
  return HttpResponse.json(body, { status, headers });
}

function handlerFor(operation: OperationExample, prefix: string, override: MockResolver | undefined): HttpHandler {
  const path = prefix + operation.path.replace(/\{([^}]+)\}/g, ':$1');
  const method = operation.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
  return http[method](path, async (info) => {
    const refused = operation.public ? null : checkCredentials(info.request);
    if (refused !== null) return refused;
    const body = await readBody(info.request);
    if (body instanceof HttpResponse) return body;
    const answer = await override?.(info);
    if (answer !== undefined) return answer;
    // A browser redirect (single sign-on) goes back to the page it came from.
    if (operation.status >= 300 && operation.status < 400) return new HttpResponse(null, { status: operation.status, headers: { location: '/' } });
    const specific = streamedAnswer(operation.operationId, operation.example, body) ?? auditExportAnswer(operation.operationId, info.request);
    if (specific !== undefined) return specific;
    if (operation.example === null) return new HttpResponse(null, { status: operation.status });
    if (operation.contentType !== null && operation.contentType !== 'application/json') {
      return new HttpResponse(String(operation.example), { status: operation.status, headers: { 'content-type': operation.contentType } });
    }
    return HttpResponse.json(operation.example as never, { status: operation.status });
  });
}

function checkCredentials(request: Request): HttpResponse<ErrorBody> | null {
  const authorization = request.headers.get('authorization');
  if (authorization === null || authorization.trim() === '') {
    return errorResponse(401, 'missing_credentials', 'Not authenticated: send Authorization: Bearer <access token or API key>');
  }
  if (!BEARER.test(authorization)) {
    return errorResponse(400, 'malformed_authorization_header', 'Malformed Authorization header: expected "Bearer <access token or API key>"');
  }
  return null;
}

/** The request's JSON body (undefined when it has none), or the error answer for a body svc would refuse. */
async function readBody(request: Request): Promise<unknown> {
  const text = await request.clone().text();
  const isJson = (request.headers.get('content-type') ?? '').toLowerCase().includes('json');
  if (text === '' && !isJson) return undefined;
  if (!isJson) return errorResponse(415, 'unsupported_media_type', 'Unsupported Content-Type: send application/json');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return errorResponse(400, 'invalid_request', 'Request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return errorResponse(400, 'invalid_request', 'body must be object');
  return body;
}

function resolvePrefix(baseUrl: string | undefined): string {
  const chosen = baseUrl ?? readEnvironment().baseUrl;
  if (chosen !== undefined) return chosen.replace(/\/+$/, '');
  if (typeof globalThis.location === 'undefined') {
    throw new SvcError('createHandlers needs a baseUrl (or SVC_ENDPOINT in the environment) outside a browser');
  }
  return '';
}

function errorTypeFor(status: number): ErrorBody['error']['type'] {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 409:
      return 'conflict_error';
    case 429:
      return 'rate_limit_error';
    default:
      return status >= 500 ? 'server_error' : 'invalid_request_error';
  }
}
