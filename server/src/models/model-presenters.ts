/**
 * Launched models and families in the contract's shapes. An upstream's API key never leaves
 * through here: only whether there is one.
 */
import type { components } from '../generated/openapi.js';
import type { ModelFamilyRecord } from './model-records.js';
import type { ModelRecord } from './model-records.js';

type Schemas = components['schemas'];

/**
 * The `Model` shape. `upstream` (where svc sends the model's requests) is shown only when
 * `showUpstream` (to those who may set it), and never with user-info in its URL.
 */
export function presentModel(model: ModelRecord, showUpstream: boolean): Schemas['Model'] {
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
    model_format: null,
    model_size_in_billions: null,
    quantization: null,
    dimensions: model.dimensions,
    upstream:
      model.upstream === null || !showUpstream
        ? null
        : { base_url: withoutUserInfo(model.upstream.baseUrl), model: model.upstream.model, has_api_key: model.upstream.keyCiphertext !== null },
  };
}

/** `url` without its user-info (a model stored before user-info was refused may carry one). */
export function withoutUserInfo(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.href.replace(/\/+$/, '');
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//');
  }
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

/**
 * The `ModelFamilyDescription` shape: every field of the stored definition, svc's registration
 * fields over them, and the fields the reference CLI's `registrations` command reads without
 * defaults (`model_lang`, `language`, `model_family`, `multilingual`).
 */
export function presentFamilyDescription(family: ModelFamilyRecord, isBuiltin: boolean): Schemas['ModelFamilyDescription'] {
  const definition = parseDefinition(family.definition);
  const modelLang = stringList(definition['model_lang']) ?? ['en'];
  return {
    ...(family.description === null ? {} : { model_description: family.description }),
    ...definition,
    ...presentFamily(family, isBuiltin),
    model_lang: modelLang,
    language: stringList(definition['language']) ?? modelLang,
    model_family: typeof definition['model_family'] === 'string' ? definition['model_family'] : null,
    multilingual: definition['multilingual'] === true,
  };
}

function parseDefinition(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function stringList(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : null;
}
