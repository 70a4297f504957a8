/**
 * API keys (`keys:create` for one's own, `keys:manage` for everyone's).
 */
import type { Handlers } from '../contract/handlers.js';
import { presentApiKey } from '../services/presenters.js';
import type { KeyRateLimit, KeyUpdateRequest, NewKeyRequest } from '../services/key-service.js';
import type { Services } from '../services/services.js';
import { deprecationHeaders } from './deprecation.js';

export function keyHandlers(
  services: Services,
): Pick<
  Handlers,
  'listApiKeys' | 'createApiKey' | 'getApiKey' | 'updateApiKey' | 'deleteApiKey' | 'revealApiKey' | 'getApiKeyModelPermissions' | 'setApiKeyModelPermissions'
> {
  const { keys } = services;
  const present = (record: Parameters<typeof presentApiKey>[0]) => presentApiKey(record, keys.encryptionKeyId);
  return {
    listApiKeys: async ({ query, principal }) => ({ status: 200, body: (await keys.list(principal, query.owner)).map(present) }),
    createApiKey: async ({ body, principal }) => {
      const request: NewKeyRequest = { rateLimit: rateLimitOf(body) };
      if (body.name !== undefined) request.name = body.name;
      if (body.description !== undefined) request.description = body.description;
      if (body.owner !== undefined) request.owner = body.owner;
      if (body.expires_at !== undefined) request.expiresAt = body.expires_at;
      if (body.model_permissions !== undefined) request.modelPermissions = body.model_permissions;
      if (body.permissions !== undefined) request.permissions = body.permissions;
      if (body.limits !== undefined) request.limits = body.limits;
      const created = await keys.create(principal, request);
      const shown = present(created.value.record);
      return {
        status: 201,
        body: { ...shown, key: created.value.plaintext, prefix: shown.key_prefix },
        headers: deprecationHeaders(created.usedLegacyNames),
      };
    },
    getApiKey: async ({ params, principal }) => ({ status: 200, body: present(await keys.get(principal, params.key_id)) }),
    updateApiKey: async ({ body, params, principal }) => {
      const request: KeyUpdateRequest = { rateLimit: rateLimitOf(body) };
      if (body.name !== undefined) request.name = body.name;
      if (body.description !== undefined) request.description = body.description;
      // 0 and 1 as the reference server stores them.
      if (body.enabled !== undefined) request.enabled = body.enabled === true || body.enabled === 1;
      if (body.expires_at !== undefined) request.expiresAt = body.expires_at;
      if (body.model_permissions !== undefined) request.modelPermissions = body.model_permissions;
      if (body.permissions !== undefined) request.permissions = body.permissions;
      if (body.limits !== undefined) request.limits = body.limits;
      const updated = await keys.update(principal, params.key_id, request);
      return { status: 200, body: present(updated.value), headers: deprecationHeaders(updated.usedLegacyNames) };
    },
    deleteApiKey: async ({ params, principal }) => {
      await keys.delete(principal, params.key_id);
      return { status: 204, body: undefined };
    },
    revealApiKey: async ({ params, principal }) => ({
      status: 200,
      body: { id: params.key_id, key: await keys.reveal(principal, params.key_id) },
    }),
    getApiKeyModelPermissions: async ({ params, principal }) => ({
      status: 200,
      body: { model_permissions: (await keys.get(principal, params.key_id)).modelPermissions },
    }),
    setApiKeyModelPermissions: async ({ body, params, principal }) => {
      const updated = await keys.update(principal, params.key_id, { modelPermissions: body.model_permissions });
      return { status: 200, body: { model_permissions: updated.value.modelPermissions } };
    },
  };
}

/** The `rate_limit_*` fields of a create or update body, as the key service takes them. */
function rateLimitOf(body: {
  rate_limit_max_failures?: number | null;
  rate_limit_window_seconds?: number | null;
  rate_limit_ban_seconds?: number | null;
}): Partial<KeyRateLimit> {
  const limit: Partial<KeyRateLimit> = {};
  if (body.rate_limit_max_failures !== undefined) limit.maxFailures = body.rate_limit_max_failures;
  if (body.rate_limit_window_seconds !== undefined) limit.windowSeconds = body.rate_limit_window_seconds;
  if (body.rate_limit_ban_seconds !== undefined) limit.banSeconds = body.rate_limit_ban_seconds;
  return limit;
}
