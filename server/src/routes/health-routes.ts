/**
 * Health and the authentication switch.
 */
import type { Handlers } from '../contract/handlers.js';
import type { Services } from '../services/services.js';

/** The server's version as reported by `GET /status`. */
export const SERVICE_VERSION = '3.0.0';

export function healthHandlers(services: Services): Pick<Handlers, 'getStatus' | 'getClusterAuth'> {
  return {
    getStatus: async () => {
      await services.health.ping();
      return { status: 200, body: { status: 'ok', version: SERVICE_VERSION } };
    },
    getClusterAuth: () => ({ status: 200, body: { auth: services.config.authEnabled } }),
  };
}
