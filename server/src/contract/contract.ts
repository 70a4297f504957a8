/**
 * The contract as the server uses it: every operation of the generated, bundled OpenAPI document
 * with its method, path, security, required permissions and the JSON Schemas of its parts.
 */
import contractDocument from '../generated/contract.json' with { type: 'json' };
import { allPermissions, type Permission } from '../auth/permissions.js';
import type { operations } from '../generated/openapi.js';

/** The id of an operation of the contract. */
export type OperationId = keyof operations;
/** A JSON Schema (2020-12) as found in the contract. */
export type JsonSchema = Record<string, unknown>;

/** One operation of the contract. */
export interface OperationSpec {
  operationId: OperationId;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** The OpenAPI path template, e.g. `/v1/admin/users/{user_id}`. */
  path: string;
  /** The same path in router form, e.g. `/v1/admin/users/:user_id`. */
  routePath: string;
  /** True when the operation needs no credentials (`security: []`). */
  isPublic: boolean;
  /** The caller needs at least one of these (`x-svc-permissions`); empty means any authenticated caller. */
  requiredPermissions: Permission[];
  body: JsonSchema | null;
  bodyRequired: boolean;
  params: JsonSchema | null;
  query: JsonSchema | null;
  /** Response schema by status code; null for a response without a body. */
  responses: Record<string, JsonSchema | null>;
}

interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: JsonSchema;
}

type Document = typeof contractDocument & { components: { schemas: Record<string, JsonSchema> } };
const document = contractDocument as unknown as Document;
const methods = ['get', 'post', 'put', 'delete', 'patch'] as const;

/** The raw bundled contract (with `#/components/...` references). */
export const contract: Document = document;

/** The component schemas, keyed by name. */
export const componentSchemas: Record<string, JsonSchema> = document.components.schemas;

function resolve<T>(node: unknown): T {
  let current = node as { $ref?: string };
  while (typeof current.$ref === 'string') {
    const path = current.$ref.replace(/^#\//, '').split('/');
    current = path.reduce<unknown>((at, segment) => (at as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')], document) as { $ref?: string };
  }
  return current as T;
}

function parametersSchema(parameters: ParameterObject[], location: 'path' | 'query'): JsonSchema | null {
  const selected = parameters.filter((p) => p.in === location);
  if (selected.length === 0) return null;
  return {
    type: 'object',
    properties: Object.fromEntries(selected.map((p) => [p.name, p.schema])),
    required: selected.filter((p) => p.required === true).map((p) => p.name),
  };
}

function readPermissions(operationId: string, value: unknown, isPublic: boolean): Permission[] {
  if (isPublic) return [];
  if (!Array.isArray(value) || value.some((p) => !allPermissions.includes(p as Permission))) {
    throw new Error(`contract: operation ${operationId} needs an x-svc-permissions list of permission names`);
  }
  return value as Permission[];
}

function readOperations(): OperationSpec[] {
  const specs: OperationSpec[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
    const shared = ((item['parameters'] as unknown[] | undefined) ?? []).map((p) => resolve<ParameterObject>(p));
    for (const method of methods) {
      const operation = item[method] as Record<string, unknown> | undefined;
      if (operation === undefined) continue;
      const operationId = operation['operationId'] as OperationId;
      const own = ((operation['parameters'] as unknown[] | undefined) ?? []).map((p) => resolve<ParameterObject>(p));
      const parameters = [...shared, ...own];
      const security = (operation['security'] as unknown[] | undefined) ?? (document.security as unknown[]);
      const isPublic = security.length === 0;
      const requestBody = operation['requestBody'] === undefined ? null : resolve<{ required?: boolean; content: Record<string, { schema: JsonSchema }> }>(operation['requestBody']);
      const responses: Record<string, JsonSchema | null> = {};
      for (const [status, response] of Object.entries(operation['responses'] as Record<string, unknown>)) {
        const resolved = resolve<{ content?: Record<string, { schema: JsonSchema }> }>(response);
        // A response without JSON (an export) is described by its first media type's schema (a string).
        const content = resolved.content ?? {};
        responses[status] = content['application/json']?.schema ?? Object.values(content)[0]?.schema ?? null;
      }
      specs.push({
        operationId,
        method: method.toUpperCase() as OperationSpec['method'],
        path,
        routePath: path.replace(/\{([^}]+)\}/g, ':$1'),
        isPublic,
        requiredPermissions: readPermissions(operationId, operation['x-svc-permissions'], isPublic),
        body: requestBody?.content['application/json']?.schema ?? null,
        bodyRequired: requestBody?.required === true,
        params: parametersSchema(parameters, 'path'),
        query: parametersSchema(parameters, 'query'),
        responses,
      });
    }
  }
  return specs;
}

/** Every operation of the contract, in document order. */
export const operationSpecs: readonly OperationSpec[] = readOperations();
