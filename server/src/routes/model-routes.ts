/**
 * Models: list, get, launch and stop (`models:list`, `models:write`); model families: list,
 * register and unregister (`models:list`, `models:register`). Per-key model restrictions apply.
 */
import type { Handlers } from '../contract/handlers.js';
import type { components } from '../generated/openapi.js';
import { findBuiltinFamily } from '../models/builtin-families.js';
import { presentFamily, presentModel } from '../models/model-presenters.js';
import type { Services } from '../services/services.js';
import { noteFamily, noteModel } from './model-audit.js';

type ModelFamilyDefinition = components['schemas']['ModelFamilyDefinition'];

export function modelHandlers(
  services: Services,
): Pick<Handlers, 'listModels' | 'launchModel' | 'getModel' | 'stopModel' | 'listModelRegistrations' | 'registerModel' | 'unregisterModel'> {
  const { models } = services;
  return {
    listModels: async ({ principal }) => ({ status: 200, body: { object: 'list', data: (await models.list(principal)).map(presentModel) } }),
    getModel: async ({ params, principal, request }) => {
      await noteModel(request, models, params.model_uid);
      return { status: 200, body: presentModel(await models.get(principal, params.model_uid)) };
    },
    launchModel: async ({ body, principal, request }) => {
      noteFamily(request, { id: body.model_uid ?? body.model_name, name: body.model_name, type: body.model_type ?? 'LLM' });
      const model = await models.launch(principal, body);
      const where = model.upstream === null ? '' : ` → ${model.upstream.baseUrl} (${model.upstream.model})`;
      request.log.info(`model ${model.uid} launched: ${model.modelType} ${model.modelName}, engine ${model.engine}${where}`);
      return { status: 201, body: presentModel(model) };
    },
    stopModel: async ({ params, principal, request }) => {
      await noteModel(request, models, params.model_uid);
      const model = await models.stop(principal, params.model_uid);
      request.log.info(`model ${model.uid} stopped`);
      return { status: 204, body: undefined };
    },
    listModelRegistrations: async ({ params, principal }) => ({
      status: 200,
      body: (await models.listFamilies(principal, params.model_type)).map((f) => presentFamily(f, findBuiltinFamily(f.modelType, f.modelName) !== null)),
    }),
    registerModel: async ({ params, body, principal, request }) => {
      const definition = typeof body.model === 'string' ? services.familyDefinitions.parse(body.model) : body.model;
      noteFamily(request, { name: (definition as ModelFamilyDefinition).model_name, type: params.model_type });
      const family = await models.register(principal, params.model_type, definition as ModelFamilyDefinition);
      request.log.info(`model family ${family.modelType}/${family.modelName} registered`);
      return { status: 201, body: presentFamily(family, false) };
    },
    unregisterModel: async ({ params, principal, request }) => {
      noteFamily(request, { name: params.model_name, type: params.model_type });
      await models.unregister(principal, params.model_type, params.model_name);
      request.log.info(`model family ${params.model_type}/${params.model_name} unregistered`);
      return { status: 204, body: undefined };
    },
  };
}
