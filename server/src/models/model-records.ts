/**
 * Launched models and model families as the services see them: the storage port's records with
 * their strings narrowed to the contract's types. Only validated values are ever stored, so the
 * narrowing is a type assertion, not a copy (the hot path of an inference request reads these).
 */
import type { components } from '../generated/openapi.js';
import type { ModelFamilyRecord as StoredFamily, ModelRecord as StoredModel } from '../storage/port/models.js';

/** The kind of model. */
export type ModelType = components['schemas']['ModelType'];
/** What a model can do. */
export type ModelAbility = components['schemas']['ModelAbility'];
/** How a model is served. */
export type ModelEngine = components['schemas']['ModelEngine'];

/** A launched model. */
export interface ModelRecord extends Omit<StoredModel, 'modelType' | 'engine' | 'abilities'> {
  modelType: ModelType;
  engine: ModelEngine;
  abilities: ModelAbility[];
}

/** A model family (built-in or registered). */
export interface ModelFamilyRecord extends Omit<StoredFamily, 'modelType' | 'abilities'> {
  modelType: ModelType;
  abilities: ModelAbility[];
}

/** The service view of a stored model. */
export function modelFromStore(stored: StoredModel | null): ModelRecord | null {
  return stored as ModelRecord | null;
}

/** The service view of a stored family. */
export function familyFromStore(stored: StoredFamily | null): ModelFamilyRecord | null {
  return stored as ModelFamilyRecord | null;
}
