/**
 * The model families svc ships: served by the built-in engine without weights, deterministically,
 * so every route can be used (and tested) on a machine that cannot download anything.
 */
import type { ModelFamilyRecord } from './model-records.js';
import type { ModelType } from './model-records.js';

const family = (fields: Omit<ModelFamilyRecord, 'definition' | 'createdBy' | 'createdAt'>): ModelFamilyRecord =>
  Object.freeze({ ...fields, definition: JSON.stringify({ model_name: fields.modelName }), createdBy: null, createdAt: 0 });

/** The built-in families, by type and name. */
export const builtinFamilies: readonly ModelFamilyRecord[] = [
  family({
    modelName: 'echo',
    modelType: 'LLM',
    abilities: ['chat', 'generate'],
    requiresSystemMessageFirst: false,
    dimensions: null,
    description: 'Answers with the last user message (or the prompt); deterministic, no weights.',
  }),
  family({
    modelName: 'echo-system-first',
    modelType: 'LLM',
    abilities: ['chat', 'generate'],
    requiresSystemMessageFirst: true,
    dimensions: null,
    description: 'Like echo, with a chat template that needs the system message at messages[0].',
  }),
  family({
    modelName: 'hash-embedding',
    modelType: 'embedding',
    abilities: ['embed'],
    requiresSystemMessageFirst: false,
    dimensions: 64,
    description: 'Unit-length embeddings derived from SHA-256 of the text; deterministic, no weights.',
  }),
];

/** The built-in family of `modelType` named `modelName`, if there is one. */
export function findBuiltinFamily(modelType: ModelType, modelName: string): ModelFamilyRecord | null {
  return builtinFamilies.find((f) => f.modelType === modelType && f.modelName === modelName) ?? null;
}
