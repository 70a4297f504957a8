/**
 * Models: list, get, launch and stop (`models:list`, `models:write`); model families: list, get,
 * register and unregister (`models:list`, `models:register`). Per-key model restrictions apply.
 * The write routes answer 200 with a JSON body, as the reference clients require.
 */
import { holds } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';
import type { Handlers } from '../contract/handlers.js';
import type { components } from '../generated/openapi.js';
import { findBuiltinFamily } from '../models/builtin-families.js';
import { presentFamily, presentFamilyDescription, presentModel } from '../models/model-presenters.js';
import type { Services } from '../services/services.js';
import { noteFamily, noteModel } from './model-audit.js';

type ModelFamilyDefinition = components['schemas']['ModelFamilyDefinition'];

/** Upstream details (where svc sends requests) are shown only to those who may set them: administrators. */
const mayChangeUpstream = (principal: Principal): boolean => holds(principal.permissions, 'admin');

export function modelHandlers(
  services: Services,
): Pick<
  Handlers,
  | 'listModels'
  | 'launchModel'
  | 'getModel'
  | 'stopModel'
  | 'listModelInstances'
  | 'getModelLaunchProgress'
  | 'listModelRegistrations'
  | 'getModelRegistration'
  | 'registerModel'
  | 'unregisterModel'
> {
  const { models } = services;
  return {
    listModels: async ({ principal }) => ({
      status: 200,
      body: { object: 'list', data: (await models.list(principal)).map((model) => presentModel(model, mayChangeUpstream(principal))) },
    }),
    getModel: async ({ params, principal, request }) => {
      await noteModel(request, models, params.model_uid);
      return { status: 200, body: presentModel(await models.get(principal, params.model_uid, request.epochs ?? undefined), mayChangeUpstream(principal)) };
    },
    // The reference CLI polls these after a launch; svc's launches are done when answered.
    listModelInstances: async ({ query, principal }) => ({
      status: 200,
      body: (await models.list(principal))
        .filter((model) => (query.model_name === undefined || model.modelName === query.model_name) && (query.model_uid === undefined || model.uid === query.model_uid))
        .map((model) => ({ model_uid: model.uid, model_name: model.modelName, model_type: model.modelType, status: 'READY' as const })),
    }),
    getModelLaunchProgress: async ({ params, principal, request }) => {
      await noteModel(request, models, params.model_uid);
      await models.get(principal, params.model_uid, request.epochs ?? undefined);
      return { status: 200, body: { progress: 1 } };
    },
    launchModel: async ({ body, principal, request }) => {
      noteFamily(request, { id: body.model_uid ?? body.model_name, name: body.model_name, type: body.model_type ?? 'LLM' });
      const { model, warning } = await models.launch(principal, body);
      noteFamily(request, { id: model.uid, name: model.modelName, type: model.modelType });
      request.audit.target = model.uid;
      const where = model.upstream === null ? '' : ` → ${model.upstream.baseUrl} (${model.upstream.model})`;
      request.log.info(`model ${model.uid} launched: ${model.modelType} ${model.modelName}, engine ${model.engine}${where}`);
      return { status: 200, body: presentModel(model, mayChangeUpstream(principal)), ...(warning === null ? {} : { headers: { warning } }) };
    },
    stopModel: async ({ params, principal, request }) => {
      await noteModel(request, models, params.model_uid);
      const model = await models.stop(principal, params.model_uid, request.epochs ?? undefined);
      request.log.info(`model ${model.uid} stopped`);
      return { status: 200, body: presentModel(model, mayChangeUpstream(principal)) };
    },
    listModelRegistrations: async ({ params, principal }) => ({
      status: 200,
      body: (await models.listFamilies(principal, params.model_type)).map((f) => presentFamily(f, findBuiltinFamily(f.modelType, f.modelName) !== null)),
    }),
    getModelRegistration: async ({ params, principal }) => {
      const family = await models.getFamily(principal, params.model_type, params.model_name);
      return { status: 200, body: presentFamilyDescription(family, findBuiltinFamily(family.modelType, family.modelName) !== null) };
    },
    registerModel: async ({ params, body, principal, request }) => {
      const definition = typeof body.model === 'string' ? services.familyDefinitions.parse(body.model) : body.model;
      noteFamily(request, { name: (definition as ModelFamilyDefinition).model_name, type: params.model_type });
      const family = await models.register(principal, params.model_type, definition as ModelFamilyDefinition);
      request.log.info(`model family ${family.modelType}/${family.modelName} registered`);
      return { status: 200, body: presentFamily(family, false) };
    },
    unregisterModel: async ({ params, principal, request }) => {
      noteFamily(request, { name: params.model_name, type: params.model_type });
      await models.unregister(principal, params.model_type, params.model_name);
      request.log.info(`model family ${params.model_type}/${params.model_name} unregistered`);
      return { status: 200, body: { ok: true } };
    },
  };
}
