/**
 * Compiles the contract's JSON Schemas (2020-12) with Ajv. Component references
 * (`#/components/schemas/X`) resolve against one registered copy of the components.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { componentSchemas, type JsonSchema } from './contract.js';

const CONTRACT_ID = 'svc-contract';

function rewriteReferences(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteReferences);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' ? value.replace('#/components/schemas/', `${CONTRACT_ID}#/$defs/`) : rewriteReferences(value),
    ]),
  );
}

/** Compiles contract schemas; `coerceTypes` suits path and query parameters, which arrive as strings. */
export class SchemaCompiler {
  readonly #ajv: Ajv2020;

  constructor(options: { coerceTypes: boolean }) {
    this.#ajv = new Ajv2020({ allErrors: false, coerceTypes: options.coerceTypes, strict: true, useDefaults: false });
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.#ajv);
    this.#ajv.addSchema({ $id: CONTRACT_ID, $defs: rewriteReferences(componentSchemas) as Record<string, JsonSchema> });
  }

  /** A validator for `schema`. */
  compile(schema: JsonSchema): ValidateFunction {
    return this.#ajv.compile(rewriteReferences(schema) as JsonSchema);
  }

  /** Ajv's description of the last errors of `validate`. */
  errorsText(validate: ValidateFunction, dataVar: string): string {
    return this.#ajv.errorsText(validate.errors, { dataVar });
  }
}
