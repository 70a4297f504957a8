/**
 * Operations: the model cache and virtual environments under `SVC_HOME` (`cache:*`,
 * `virtualenv:*`), the server's recent log lines (`logs:list`) and Prometheus metrics (`monitor:view`).
 */
import type { Handlers } from '../contract/handlers.js';
import type { Services } from '../services/services.js';

export function operationsHandlers(
  services: Services,
): Pick<Handlers, 'listCachedModels' | 'deleteCachedModel' | 'listVirtualenvs' | 'deleteVirtualenv' | 'getClusterLogs' | 'getMetrics'> {
  const { cache, virtualenvs, logSink, metrics } = services;
  return {
    listCachedModels: async () => ({ status: 200, body: { directory: cache.directory, list: await cache.list() } }),
    deleteCachedModel: async ({ query, request }) => {
      const freed = await cache.delete(query.model_name);
      request.log.info(`cache entry ${query.model_name} deleted (${freed} bytes)`);
      return { status: 200, body: { name: query.model_name, deleted: true, freed_bytes: freed } };
    },
    listVirtualenvs: async () => ({ status: 200, body: { directory: virtualenvs.directory, list: await virtualenvs.list() } }),
    deleteVirtualenv: async ({ query, request }) => {
      const freed = await virtualenvs.delete(query.model_name);
      request.log.info(`virtual environment ${query.model_name} deleted (${freed} bytes)`);
      return { status: 200, body: { name: query.model_name, deleted: true, freed_bytes: freed } };
    },
    getClusterLogs: ({ query }) => ({ status: 200, body: { lines: logSink.buffer.newest(query.lines ?? 200) } }),
    getMetrics: async () => ({ status: 200, raw: await metrics.render(), headers: { 'content-type': metrics.contentType } }),
  };
}
