/**
 * User administration (`users:manage`).
 */
import type { Handlers } from '../contract/handlers.js';
import { presentUser } from '../services/presenters.js';
import type { Services } from '../services/services.js';
import { deprecationHeaders } from './deprecation.js';

export function userHandlers(
  services: Services,
): Pick<Handlers, 'listUsers' | 'createUser' | 'getUser' | 'updateUser' | 'deleteUser' | 'setUserPassword' | 'getUserPermissions' | 'setUserPermissions'> {
  const { users } = services;
  return {
    listUsers: async () => ({ status: 200, body: (await users.list()).map(presentUser) }),
    createUser: async ({ body, principal }) => {
      const input: Parameters<typeof users.create>[1] = { username: body.username, password: body.password };
      if (body.permissions !== undefined) input.permissions = body.permissions;
      if (body.must_change_password !== undefined) input.mustChangePassword = body.must_change_password;
      const created = await users.create(principal, input);
      return { status: 201, body: presentUser(created.value), headers: deprecationHeaders(created.usedLegacyNames) };
    },
    getUser: async ({ params }) => ({ status: 200, body: presentUser(await users.get(params.user_id)) }),
    updateUser: async ({ body, params, principal }) => {
      const changes: Parameters<typeof users.update>[2] = {};
      // 0 and 1 as the reference server stores it.
      if (body.enabled !== undefined) changes.enabled = body.enabled === true || body.enabled === 1;
      if (body.permissions !== undefined) changes.permissions = body.permissions;
      if (body.limits !== undefined) changes.limits = body.limits;
      const updated = await users.update(principal, params.user_id, changes);
      return { status: 200, body: presentUser(updated.value), headers: deprecationHeaders(updated.usedLegacyNames) };
    },
    deleteUser: async ({ params, principal }) => {
      await users.delete(principal, params.user_id);
      return { status: 204, body: undefined };
    },
    setUserPassword: async ({ body, params, principal, request }) => {
      const input: Parameters<typeof users.setPassword>[2] = {
        newPassword: body.new_password,
        // One's own password: the current one is checked and counted like a login.
        verifyCurrentPassword: (target) =>
          services.sessions.verifyCurrentPassword(target, body.current_password, { clientIp: request.audit.clientIp, audit: request.audit }),
      };
      if (body.must_change_password !== undefined) input.mustChangePassword = body.must_change_password;
      await users.setPassword(principal, params.user_id, input);
      return { status: 204, body: undefined };
    },
    getUserPermissions: async ({ params }) => ({ status: 200, body: { permissions: (await users.get(params.user_id)).permissions } }),
    setUserPermissions: async ({ body, params, principal }) => {
      const updated = await users.update(principal, params.user_id, { permissions: body.permissions });
      return { status: 200, body: { permissions: updated.value.permissions }, headers: deprecationHeaders(updated.usedLegacyNames) };
    },
  };
}
