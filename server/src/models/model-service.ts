/**
 * Launching, stopping and listing models, and registering custom model families, with the per-key
 * model restrictions applied. State lives in the database only, so it survives restarts and is
 * shared by every process on one `SVC_HOME`.
 */
import { randomBytes } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import type { KeyEncryption } from '../crypto/key-encryption.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/openapi.js';
import type { LogRedactor } from '../observability/log-buffer.js';
import type { Clock } from '../runtime/clock.js';
import type { Epochs, Storage } from '../storage/port/index.js';
import { builtinFamilies, findBuiltinFamily } from './builtin-families.js';
import type { UpstreamPolicy } from './upstream-policy.js';
import { holds } from '../auth/permissions.js';
import { assertMayUseModel, describeModel, mayUseModel, mayUseUidOfAnyType, modelAccessDenied } from './model-access.js';
import { familyFromStore, modelFromStore, type ModelAbility, type ModelEngine, type ModelFamilyRecord, type ModelRecord, type ModelType } from './model-records.js';
import { ModelCache } from './model-cache.js';

type ModelLaunch = components['schemas']['ModelLaunch'];
type ModelFamilyDefinition = components['schemas']['ModelFamilyDefinition'];

/** The uid no model may have: `GET /v1/models/instances` is the reference CLI's instance list. */
const RESERVED_UID = 'instances';

/** A launched model, with the `Warning` to answer when its engine name was replaced. */
export interface LaunchedModel {
  model: ModelRecord;
  /** A `Warning` header value (RFC 9111 code 299), or null. */
  warning: string | null;
}

/** The abilities a family of a type has when its definition names none. */
const defaultAbilities: Record<ModelType, ModelAbility[]> = {
  LLM: ['chat', 'generate'],
  embedding: ['embed'],
  rerank: [],
  image: [],
  video: [],
  audio: [],
};

/** Owns the `models` and `model_families` tables' rules. */
export class ModelService {
  readonly #storage: Storage;
  readonly #encryption: KeyEncryption;
  readonly #redactor: LogRedactor;
  readonly #clock: Clock;
  readonly #cache: ModelCache;

  readonly #upstreamPolicy: UpstreamPolicy;

  constructor(storage: Storage, encryption: KeyEncryption, redactor: LogRedactor, upstreamPolicy: UpstreamPolicy, clock: Clock) {
    this.#upstreamPolicy = upstreamPolicy;
    this.#storage = storage;
    this.#encryption = encryption;
    this.#redactor = redactor;
    this.#clock = clock;
    this.#cache = new ModelCache(storage);
  }

  /** The running models the caller may use. */
  async list(principal: Principal): Promise<ModelRecord[]> {
    const models = (await this.#storage.models.list()).map((model) => modelFromStore(model) as ModelRecord);
    return models.filter((model) => mayUseModel(principal, { id: model.uid, type: model.modelType }));
  }

  /**
   * How the audit record of a request about model `uid` names it: with its family and type when
   * it is running. Never throws: a lookup that fails files the request under the uid alone.
   *
   * @param epochs - the request's epochs (`request.epochs`), so the lookup adds no read of its own.
   */
  async describeForAudit(uid: string, epochs?: Epochs | Promise<Epochs>): Promise<{ id: string; name?: string; type?: string }> {
    try {
      const model = await this.#cache.find(uid, epochs);
      return model === null ? { id: uid } : describeModel(model);
    } catch {
      return { id: uid };
    }
  }

  /**
   * The running model `uid`, if the caller may use it. A restricted key that could not use a model
   * of that uid whatever its type gets 403 without a lookup, so it cannot probe which uids exist.
   *
   * @param epochs - the request's epochs (`request.epochs`), so the lookup adds no read of its own.
   */
  async get(principal: Principal, uid: string, epochs?: Epochs | Promise<Epochs>): Promise<ModelRecord> {
    if (!mayUseUidOfAnyType(principal, uid)) throw modelAccessDenied(uid);
    const model = await this.#cache.find(uid, epochs);
    if (model === null) throw new ApiError('model_not_found', `Model not found: ${uid}`);
    assertMayUseModel(principal, { id: model.uid, type: model.modelType });
    return model;
  }

  /**
   * Launches a model of a built-in or registered family (any name, with the upstream engine).
   * Fields sent as null count as absent. Without `model_uid` the uid is the family name, or the
   * family name and a random suffix when that uid is taken. An engine name svc does not have (the
   * reference server's `vllm`, `transformers`, …) falls back to `builtin`; `warning` says so.
   */
  async launch(principal: Principal, request: ModelLaunch): Promise<LaunchedModel> {
    if (request.model_uid === RESERVED_UID) {
      throw new ApiError('invalid_request', `model_uid "${RESERVED_UID}" is reserved (GET /v1/models/${RESERVED_UID} lists the instances)`, { param: 'model_uid' });
    }
    const modelType = request.model_type ?? 'LLM';
    const requestedEngine = request.model_engine ?? (request.upstream_base_url === undefined ? 'builtin' : 'upstream');
    const engine: ModelEngine = requestedEngine === 'upstream' ? 'upstream' : 'builtin';
    const warning = engine === 'builtin' && requestedEngine !== 'builtin' ? engineFallbackWarning(requestedEngine) : null;
    assertMayUseModel(principal, { id: request.model_uid ?? request.model_name, type: modelType });
    const family = await this.#findFamily(modelType, request.model_name);
    if (engine === 'builtin') {
      if (request.upstream_base_url !== undefined || request.upstream_api_key !== undefined || request.upstream_model !== undefined) {
        throw new ApiError('invalid_request', 'upstream_base_url, upstream_api_key and upstream_model apply only to model_engine "upstream"', { param: 'model_engine' });
      }
      if (family === null) throw familyNotFound(modelType, request.model_name);
      if (family.abilities.length === 0) {
        throw new ApiError('unsupported_model_engine', `The builtin engine cannot serve ${modelType} models; launch it with model_engine "upstream"`, { param: 'model_engine' });
      }
    } else if (request.upstream_base_url === undefined) {
      throw new ApiError('invalid_request', 'model_engine "upstream" needs upstream_base_url (the OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1)', { param: 'upstream_base_url' });
    } else if (!holds(principal.permissions, 'admin')) {
      // An upstream URL makes svc send requests where it points: only administrators choose it.
      throw new ApiError('permission_denied', 'Launching a model on an upstream server (upstream_base_url) needs admin', { param: 'upstream_base_url' });
    }
    const model: ModelRecord = {
      uid: request.model_uid ?? request.model_name,
      modelName: request.model_name,
      modelType,
      engine,
      abilities: family?.abilities ?? defaultAbilities[modelType],
      requiresSystemMessageFirst: family?.requiresSystemMessageFirst ?? false,
      dimensions: family?.dimensions ?? null,
      upstream: null,
      launchedBy: principal.user?.id ?? null,
      createdAt: this.#clock.now(),
    };
    // Checked before anything is stored: the upstream policy refuses some addresses and URL shapes.
    const upstreamBaseUrl = engine === 'upstream' && request.upstream_base_url !== undefined ? this.#upstreamPolicy.checkBaseUrl(request.upstream_base_url) : null;
    let outcome: 'created' | 'uid_taken' | 'family_gone' = model.uid === RESERVED_UID ? 'uid_taken' : await this.#store(model, request, family, upstreamBaseUrl);
    while (outcome === 'uid_taken' && request.model_uid == null) {
      model.uid = randomUid(request.model_name);
      if (!mayUseModel(principal, { id: model.uid, type: modelType })) {
        throw new ApiError('model_uid_taken', `A model with uid ${request.model_name} is already running, and this key may not use another uid`, { param: 'model_uid' });
      }
      outcome = await this.#store(model, request, family, upstreamBaseUrl);
    }
    if (outcome === 'family_gone') throw familyNotFound(modelType, request.model_name);
    if (outcome === 'uid_taken') {
      throw new ApiError('model_uid_taken', `A model with uid ${model.uid} is already running; stop it or choose another model_uid`, { param: 'model_uid' });
    }
    return { model, warning };
  }

  /** Stores a launched model (with its upstream, whose key is bound to the uid); a registered family must still exist. */
  async #store(model: ModelRecord, request: ModelLaunch, family: ModelFamilyRecord | null, upstreamBaseUrl: string | null): Promise<'created' | 'uid_taken' | 'family_gone'> {
    if (upstreamBaseUrl !== null) model.upstream = this.#upstreamOf(model.uid, upstreamBaseUrl, request);
    return this.#storage.transaction(async (tx) => {
      // A registered family cannot be unregistered while a model of it is being launched.
      if (family !== null && findBuiltinFamily(model.modelType, model.modelName) === null) {
        if ((await tx.families.find(model.modelType, model.modelName, { lock: 'share' })) === null) return 'family_gone' as const;
      }
      return tx.models.insert(model);
    });
  }

  /** The stored upstream of a model launched with engine `upstream` (its API key encrypted); `baseUrl` passed the upstream policy. */
  #upstreamOf(uid: string, baseUrl: string, request: ModelLaunch): NonNullable<ModelRecord['upstream']> {
    const apiKey = request.upstream_api_key;
    if (apiKey !== undefined) this.#redactor.addSecret(apiKey);
    return {
      baseUrl,
      model: request.upstream_model ?? request.model_name,
      keyCiphertext: apiKey === undefined ? null : this.#encryption.encrypt(apiKey, upstreamKeyRowId(uid)),
      keyEncryptionId: apiKey === undefined ? null : this.#encryption.keyId,
    };
  }

  /**
   * Stops (forgets) a running model the caller may use.
   *
   * @param epochs - the request's epochs (`request.epochs`), so the lookup adds no read of its own.
   */
  async stop(principal: Principal, uid: string, epochs?: Epochs | Promise<Epochs>): Promise<ModelRecord> {
    const model = await this.get(principal, uid, epochs);
    if (!(await this.#storage.models.delete(uid))) throw new ApiError('model_not_found', `Model not found: ${uid}`);
    return model;
  }

  /** The upstream API key of a model, decrypted, or null when it has none. */
  upstreamApiKey(model: ModelRecord): string | null {
    const upstream = model.upstream;
    if (upstream === null || upstream.keyCiphertext === null) return null;
    const result = this.#encryption.decrypt(upstream.keyCiphertext, upstreamKeyRowId(model.uid), upstream.keyEncryptionId ?? '');
    if ('failure' in result) {
      throw new ApiError('upstream_error', `The upstream API key of model ${model.uid} cannot be decrypted with the current encryption key; launch the model again`);
    }
    this.#redactor.addSecret(result.plaintext);
    return result.plaintext;
  }

  /** The families of a type (built-in first) the caller's key may see. */
  async listFamilies(principal: Principal, modelType: ModelType): Promise<ModelFamilyRecord[]> {
    const registered = (await this.#storage.families.listByType(modelType)).map((family) => familyFromStore(family) as ModelFamilyRecord);
    const families = [...builtinFamilies.filter((f) => f.modelType === modelType), ...registered];
    return families.filter((f) => mayUseModel(principal, { id: f.modelName, type: f.modelType }));
  }

  /** The family (built-in or registered) `modelName` of `modelType`, if the caller's key may see it. */
  async getFamily(principal: Principal, modelType: ModelType, modelName: string): Promise<ModelFamilyRecord> {
    assertMayUseModel(principal, { id: modelName, type: modelType });
    const family = await this.#findFamily(modelType, modelName);
    if (family === null) throw familyNotFound(modelType, modelName);
    return family;
  }

  /** Registers a custom family of `modelType` from its definition (an object or a JSON string). */
  async register(principal: Principal, modelType: ModelType, definition: ModelFamilyDefinition): Promise<ModelFamilyRecord> {
    if (definition.model_type !== undefined && definition.model_type !== modelType) {
      throw new ApiError('invalid_request', `The definition's model_type ${definition.model_type} differs from the path's ${modelType}`, { param: 'model' });
    }
    assertMayUseModel(principal, { id: definition.model_name, type: modelType });
    if (findBuiltinFamily(modelType, definition.model_name) !== null) {
      throw new ApiError('model_family_exists', `${definition.model_name} is a built-in ${modelType} family; choose another name`, { param: 'model' });
    }
    const family: ModelFamilyRecord = {
      modelName: definition.model_name,
      modelType,
      abilities: definition.model_ability ?? defaultAbilities[modelType],
      requiresSystemMessageFirst: definition.requires_system_message_first ?? false,
      dimensions: definition.dimensions ?? (modelType === 'embedding' ? 64 : null),
      description: definition.model_description ?? null,
      definition: JSON.stringify(definition),
      createdBy: principal.user?.id ?? null,
      createdAt: this.#clock.now(),
    };
    if ((await this.#storage.families.insert(family)) === 'name_taken') {
      throw new ApiError('model_family_exists', `A ${modelType} family named ${family.modelName} is already registered`, { param: 'model' });
    }
    return family;
  }

  /** Unregisters a custom family that no running model uses. */
  async unregister(principal: Principal, modelType: ModelType, modelName: string): Promise<void> {
    assertMayUseModel(principal, { id: modelName, type: modelType });
    if (findBuiltinFamily(modelType, modelName) !== null) {
      throw new ApiError('builtin_model_family', `${modelName} is a built-in family and cannot be unregistered`);
    }
    await this.#storage.transaction(async (tx) => {
      if ((await tx.families.find(modelType, modelName, { lock: 'update' })) === null) throw familyNotFound(modelType, modelName);
      const running = await tx.models.countByFamily(modelType, modelName);
      if (running > 0) {
        throw new ApiError('model_family_in_use', `${running} running model(s) use the family ${modelName}; stop them first`);
      }
      await tx.families.delete(modelType, modelName);
    });
  }

  async #findFamily(modelType: ModelType, modelName: string): Promise<ModelFamilyRecord | null> {
    return findBuiltinFamily(modelType, modelName) ?? familyFromStore(await this.#storage.families.find(modelType, modelName));
  }
}

/** `name-<8 random base-36 characters>`, for a launch whose family name is taken as a uid. */
function randomUid(modelName: string): string {
  return `${modelName.slice(0, 119)}-${randomBytes(6).readUIntBE(0, 6).toString(36).padStart(8, '0').slice(-8)}`;
}

/** The `Warning` header for an engine name svc does not have (quotes and backslashes dropped, so the header stays well-formed). */
function engineFallbackWarning(engine: string): string {
  const name = engine.replace(/["\\]/g, '');
  return `299 svc "model_engine ${name} is not an engine of svc; the model is served by the builtin engine"`;
}

function familyNotFound(modelType: ModelType, modelName: string): ApiError {
  return new ApiError('model_family_not_found', `No ${modelType} model family named ${modelName}; list them with GET /v1/model_registrations/${modelType}`, { param: 'model_name' });
}

/** The associated data binding an upstream key's ciphertext to its model. */
function upstreamKeyRowId(uid: string): string {
  return `model-upstream-key:${uid}`;
}
