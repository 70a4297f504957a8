/**
 * Models: list, get, launch and stop (`models:list`, `models:write`); model families: list,
 * register and unregister (`models:list`, `models:register`). Per-key model restrictions apply.
 */
import type { Handlers } from '../contract/handlers.js';
import type { components } from '../generated/openapi.js';
import { findBuiltinFamily } from '../models/builtin-families.js';
import { presentFamily, presentModel } from '../models/model-presenters.js';
import type { Services } from '../services/services.js';

type ModelFamilyDefinition = components['schemas']['ModelFamilyDefinition'];

export function modelHandlers(
  services: Services,
): Pick<Handlers, 'listModels' | 'launchModel' | 'getModel' | 'stopModel' | 'listModelRegistrations' | 'registerModel' | 'unregisterModel'> {
  const { models } = services;
  return {
    listModels: ({ principal }) => ({ status: 200, body: { object: 'list', data: models.list(principal).map(presentModel) } }),
    getModel: ({ params, principal }) => ({ status: 200, body: presentModel(models.get(principal, params.model_uid)) }),
    launchModel: ({ body, principal, request }) => {
      const model = models.launch(principal, body);
      const where = model.upstream === null ? '' : ` → ${model.upstream.baseUrl} (${model.upstream.model})`;
      request.log.info(`model ${model.uid} launched: ${model.modelType} ${model.modelName}, engine ${model.engine}${where}`);
      return { status: 201, body: presentModel(model) };
    },
    stopModel: ({ params, principal, request }) => {
      const model = models.stop(principal, params.model_uid);
      request.log.info(`model ${model.uid} stopped`);
      return { status: 204, body: undefined };
    },
    listModelRegistrations: ({ params, principal }) => ({
      status: 200,
      body: models.listFamilies(principal, params.model_type).map((f) => presentFamily(f, findBuiltinFamily(f.modelType, f.modelName) !== null)),
    }),
    registerModel: ({ params, body, principal, request }) => {
      const definition = typeof body.model === 'string' ? services.familyDefinitions.parse(body.model) : body.model;
      const family = models.register(principal, params.model_type, definition as ModelFamilyDefinition);
      request.log.info(`model family ${family.modelType}/${family.modelName} registered`);
      return { status: 201, body: presentFamily(family, false) };
    },
    unregisterModel: ({ params, principal, request }) => {
      models.unregister(principal, params.model_type, params.model_name);
      request.log.info(`model family ${params.model_type}/${params.model_name} unregistered`);
      return { status: 204, body: undefined };
    },
  };
}
