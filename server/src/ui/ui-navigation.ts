/**
 * Which unknown paths are the web UI's to answer. A browser navigating to a path no route serves
 * (a typo, an old bookmark) gets the app's own not-found page, while API clients — and anything
 * under an API path — keep the API's 404 in the error shape. A navigation is a `GET` whose `Accept`
 * names `text/html` (what browsers send for a page; `fetch`, curl and the SDKs do not), to a path
 * outside the contract's top-level segments (`/v1`, `/token`, `/status`, `/metrics`) and outside
 * the build's hashed files (`/assets/`).
 */
import type { FastifyRequest } from 'fastify';
import { operationSpecs } from '../contract/contract.js';

/** The first path segments of the contract's operations (`v1`, `token`, …). */
const apiSegments: ReadonlySet<string> = new Set(operationSpecs.map((spec) => spec.path.split('/')[1] ?? ''));

/** Segments the UI never owns: its hashed build files (a missing one is a plain 404). */
const fileSegments: ReadonlySet<string> = new Set(['assets']);

/**
 * Whether `request` is a browser navigation to a path the UI owns, so an unknown one may be
 * answered with the app's not-found page.
 *
 * @example
 * isUiNavigation({ method: 'GET', url: '/nowhere', headers: { accept: 'text/html' } }); // true
 * isUiNavigation({ method: 'GET', url: '/v1/nowhere', headers: { accept: 'text/html' } }); // false
 */
export function isUiNavigation(request: Pick<FastifyRequest, 'method' | 'url' | 'headers'>): boolean {
  if (request.method !== 'GET') return false;
  const accept = request.headers.accept ?? '';
  if (!/(^|,)\s*text\/html\s*(;|,|$)/i.test(accept)) return false;
  const path = request.url.split('?')[0] ?? '';
  const first = path.split('/')[1] ?? '';
  return !apiSegments.has(first) && !fileSegments.has(first);
}
