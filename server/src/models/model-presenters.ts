/**
 * Launched models and families in the contract's shapes. An upstream's API key never leaves
 * through here: only whether there is one.
 */
import type { components } from '../generated/openapi.js';
import type { ModelFamilyRecord } from './model-records.js';
import type { ModelRecord } from './model-records.js';

type Schemas = components['schemas'];

/** The `Model` shape. */
export function presentModel(model: ModelRecord): Schemas['Model'] {
  return {
    id: model.uid,
    object: 'model',
    created: Math.floor(model.createdAt / 1000),
    owned_by: 'svc',
    model_uid: model.uid,
    model_name: model.modelName,
    model_type: model.modelType,
    model_engine: model.engine,
    model_ability: model.abilities,
    requires_system_message_first: model.requiresSystemMessageFirst,
    upstream:
      model.upstream === null ? null : { base_url: model.upstream.baseUrl, model: model.upstream.model, has_api_key: model.upstream.keyCiphertext !== null },
  };
}

/** The `ModelRegistration` shape. */
export function presentFamily(family: ModelFamilyRecord, isBuiltin: boolean): Schemas['ModelRegistration'] {
  return {
    model_name: family.modelName,
    model_type: family.modelType,
    model_ability: family.abilities,
    requires_system_message_first: family.requiresSystemMessageFirst,
    dimensions: family.dimensions,
    is_builtin: isBuiltin,
    description: family.description,
    created_at: isBuiltin ? null : new Date(family.createdAt).toISOString(),
  };
}
