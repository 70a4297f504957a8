/**
 * Checks a response against the contract: the status must be documented for the operation (or be
 * one of the generic error statuses every route may answer), and the body must match its schema.
 * The test suite runs every response it receives through this.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { componentSchemas, operationSpecs, type OperationSpec } from './contract.js';
import { SchemaCompiler } from './schema-compiler.js';

/** Statuses any route may answer with the error shape, though no operation lists them. */
export const genericErrorStatuses: readonly number[] = [404, 408, 413, 415, 429, 431, 500, 503];

interface Route {
  spec: OperationSpec;
  pattern: RegExp;
}

/** Validates responses against the contract. */
export class ResponseValidator {
  readonly #compiler = new SchemaCompiler({ coerceTypes: false });
  readonly #routes: Route[] = operationSpecs.map((spec) => ({
    spec,
    // `[^/]*` as the router matches: an empty segment (`/v1/admin/users/`) reaches the operation, whose parameter schema refuses it.
    pattern: new RegExp(`^${spec.path.replace(/\{[^}]+\}/g, '[^/]*')}$`),
  }));
  readonly #validators = new Map<string, ValidateFunction>();

  /** The operation serving `method` and `pathname`, if the contract has one. */
  findOperation(method: string, pathname: string): OperationSpec | null {
    const upper = method.toUpperCase();
    return this.#routes.find((route) => route.spec.method === upper && route.pattern.test(pathname))?.spec ?? null;
  }

  /**
   * Returns null when the response conforms, else a description of what is wrong.
   *
   * @param body - the parsed JSON body, or undefined when the response had none.
   * @param contentType - the response's Content-Type; a body that is not JSON must be of a media
   *   type the operation documents for the status (an event stream, Prometheus text).
   */
  check(method: string, pathname: string, status: number, body: unknown, contentType?: string | null): string | null {
    const operation = this.findOperation(method, pathname);
    const where = `${method.toUpperCase()} ${pathname} → ${status}`;
    const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (mediaType !== '' && mediaType !== 'application/json' && body !== undefined) {
      const documented = operation?.responseMediaTypes[String(status)] ?? [];
      if (!documented.includes(mediaType)) return `${where}: ${mediaType} is not documented for this status`;
      return typeof body === 'string' ? null : `${where}: expected a text body`;
    }
    let schema: Record<string, unknown> | null;
    let key: string;
    if (operation !== null && String(status) in operation.responses) {
      schema = operation.responses[String(status)] ?? null;
      key = `${operation.operationId}:${status}`;
    } else if (genericErrorStatuses.includes(status) || (operation === null && status === 405)) {
      schema = componentSchemas['Error'] ?? null;
      key = 'Error';
    } else {
      return `${where}: status not documented for ${operation?.operationId ?? 'any operation'}`;
    }
    if (schema === null) return body === undefined ? null : `${where}: expected no body`;
    if (body === undefined) return `${where}: expected a JSON body`;
    let validate = this.#validators.get(key);
    if (validate === undefined) {
      validate = this.#compiler.compile(schema);
      this.#validators.set(key, validate);
    }
    return validate(body) ? null : `${where}: ${this.#compiler.errorsText(validate, 'body')}`;
  }
}
