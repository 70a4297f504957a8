/**
 * The `svc_oidc` cookie: binds a browser sign-in's `state` to the browser that started it, so a
 * callback link started in another browser (login CSRF) is refused. `SameSite=Lax`, since the
 * provider's redirect back is a cross-site top-level navigation that a `Strict` cookie would miss;
 * `HttpOnly`; sent only to `/v1/auth/oidc`; ten minutes, like the state it guards.
 */
import type { FastifyRequest } from 'fastify';
import { cameOverHttps } from './session-cookie.js';

/** The cookie's name. */
export const OIDC_BINDING_COOKIE_NAME = 'svc_oidc';
const PATH = '/v1/auth/oidc';
const MAX_AGE_SECONDS = 600;
const safeValue = /^[A-Za-z0-9_-]{1,128}$/;

/** The binding in the request's `svc_oidc` cookie, or null. */
export function readOidcBindingCookie(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator === -1 || part.slice(0, separator).trim() !== OIDC_BINDING_COOKIE_NAME) continue;
    const value = part.slice(separator + 1).trim();
    return safeValue.test(value) ? value : null;
  }
  return null;
}

/** The `Set-Cookie` value that stores `binding`. */
export function oidcBindingCookie(request: FastifyRequest, binding: string): string {
  if (!safeValue.test(binding)) throw new Error('binding is not cookie-safe');
  return serialize(request, binding, MAX_AGE_SECONDS);
}

/** The `Set-Cookie` value that removes the cookie. */
export function clearedOidcBindingCookie(request: FastifyRequest): string {
  return serialize(request, '', 0);
}

function serialize(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  const attributes = [`${OIDC_BINDING_COOKIE_NAME}=${value}`, `Path=${PATH}`, `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax'];
  if (cameOverHttps(request)) attributes.push('Secure');
  return attributes.join('; ');
}
