/**
 * First-run setup: its state and the creation of the first administrator.
 */
import type { Handlers } from '../contract/handlers.js';
import { presentUser } from '../services/presenters.js';
import type { Services } from '../services/services.js';

export function setupHandlers(services: Services): Pick<Handlers, 'getSetupStatus' | 'createFirstAdmin'> {
  return {
    getSetupStatus: async () => {
      const needsSetup = await services.users.needsSetup();
      return {
        status: 200,
        body: { needs_setup: needsSetup, initialized: !needsSetup, password_min_length: services.config.passwordMinLength },
      };
    },
    createFirstAdmin: async ({ body }) => {
      const user = await services.users.createFirstAdmin(body.username, body.password);
      return { status: 201, body: presentUser(user) };
    },
  };
}
