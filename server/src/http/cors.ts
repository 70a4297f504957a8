/**
 * Cross-origin callers (`SVC_CORS_ORIGINS`): a browser app served from another origin may call the
 * API when its origin is listed. Listed origins get their own origin back with credentials allowed;
 * `*` lets any origin call without credentials (cookies), never with them. Every other origin, and a
 * request without `Origin`, gets no CORS header at all, and its preflight is the 404 of an unknown
 * route. Nothing is registered when the list is empty (the default).
 */
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Answer headers a cross-origin script may read: the request id, the waits of 429/503, the 401 challenge. */
const EXPOSED_HEADERS = ['x-request-id', 'retry-after', 'www-authenticate', 'content-disposition'];
const ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'DELETE'];
/** How long a browser may cache a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** Registers CORS for `origins` (exact origins, or `['*']`); does nothing for an empty list. */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const anyOrigin = origins.includes('*');
  const listed = new Set(origins);
  const shared = {
    methods: ALLOWED_METHODS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    strictPreflight: false,
  } satisfies FastifyCorsOptions;
  await app.register(cors, {
    delegator: (request, callback) => {
      const origin = request.headers.origin;
      if (anyOrigin) return callback(null, { ...shared, origin: '*', credentials: false });
      if (origin === undefined || !listed.has(origin)) return callback(null, { origin: false });
      return callback(null, { ...shared, origin, credentials: true });
    },
  });
}
