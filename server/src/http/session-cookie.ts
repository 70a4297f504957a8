/**
 * The browser session cookie: the refresh token of a web-UI login, held by the browser where page
 * scripts cannot read it (`HttpOnly`), sent only to the session routes (`Path`) and never on a
 * cross-site request (`SameSite=Strict`). The value is an opaque refresh token (URL-safe base64 plus
 * a prefix), so no cookie encoding library is needed.
 */
import type { FastifyRequest } from 'fastify';

/** The cookie's name. */
export const SESSION_COOKIE_NAME = 'svc_session';
/** The only path the browser sends the cookie to: the session routes (login, refresh, logout). */
export const SESSION_COOKIE_PATH = '/v1/auth/session';

const safeValue = /^[A-Za-z0-9_\-.~]+$/;

/** The refresh token in the request's `svc_session` cookie, or null when there is none. */
export function readSessionCookie(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator === -1 || part.slice(0, separator).trim() !== SESSION_COOKIE_NAME) continue;
    const value = part.slice(separator + 1).trim();
    return value !== '' && value.length <= 512 && safeValue.test(value) ? value : null;
  }
  return null;
}

/** True when the browser reached us over HTTPS, directly or through a proxy that says so. */
export function cameOverHttps(request: FastifyRequest): boolean {
  const forwarded = request.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  // Trusting the header here is safe: it can only add the Secure restriction, never remove one.
  return request.protocol === 'https' || first === 'https';
}

/** The `Set-Cookie` value that stores `refreshToken` for `maxAgeSeconds`. */
export function sessionCookie(request: FastifyRequest, refreshToken: string, maxAgeSeconds: number): string {
  if (!safeValue.test(refreshToken)) throw new Error('refresh token is not cookie-safe');
  return serialize(request, refreshToken, Math.max(0, Math.floor(maxAgeSeconds)));
}

/** The `Set-Cookie` value that removes the cookie. */
export function clearedSessionCookie(request: FastifyRequest): string {
  return serialize(request, '', 0);
}

function serialize(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  const attributes = [`${SESSION_COOKIE_NAME}=${value}`, `Path=${SESSION_COOKIE_PATH}`, `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict'];
  if (cameOverHttps(request)) attributes.push('Secure');
  return attributes.join('; ');
}
