/**
 * Reads a model family definition sent as a JSON string (as the reference clients send it) and
 * checks it against the contract's `ModelFamilyDefinition`, so a string is held to the same rules
 * as an object.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { SchemaCompiler } from '../contract/schema-compiler.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/openapi.js';

type ModelFamilyDefinition = components['schemas']['ModelFamilyDefinition'];

/** Parses and validates definitions given as JSON text. */
export class FamilyDefinitionParser {
  readonly #compiler: SchemaCompiler;
  readonly #validate: ValidateFunction;

  /** @param compiler - a compiler without type coercion, e.g. the server's request-body compiler (creating one costs tens of ms). */
  constructor(compiler: SchemaCompiler = new SchemaCompiler({ coerceTypes: false })) {
    this.#compiler = compiler;
    this.#validate = compiler.compile({ $ref: '#/components/schemas/ModelFamilyDefinition' });
  }

  /** The definition in `text`, or 400 `invalid_request` naming `model`. */
  parse(text: string): ModelFamilyDefinition {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ApiError('invalid_request', 'model is neither a model family definition object nor a JSON string of one', { param: 'model' });
    }
    if (!this.#validate(value)) {
      throw new ApiError('invalid_request', `model is not a valid model family definition: ${this.#compiler.errorsText(this.#validate, 'model')}`, { param: 'model' });
    }
    return value as ModelFamilyDefinition;
  }
}
