/**
 * Serves the static web UI beside the contract's API routes. The UI is not an API operation, so it
 * is not in the contract: it is a Fastify plugin of its own that registers
 * - one GET route per file of the build (`@fastify/static` with `wildcard: false`: the files present
 *   at start-up, nothing else),
 * - `index.html` at each client route ({@link clientRoutes}),
 * - redirects from the legacy `/ui/` paths to `/`,
 * and adds the security headers to every one of those responses. Those requests are left out of the
 * audit trail (they are not API calls). Everything else falls through to the API's 404 in the error
 * shape (an API call to an unknown route, audited as such) — except a browser navigation to a path
 * the UI owns ({@link isUiNavigation}), which gets `index.html` with status 404, so the app shows its
 * not-found page (still audited as an unknown route).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FrontendConfig } from '../config.js';
import { clientRoutes } from './client-routes.js';
import { uiSecurityHeaders } from './security-headers.js';
import { isUiNavigation } from './ui-navigation.js';

/**
 * Answers an unknown path with the app's not-found page when the request is a navigation the UI
 * owns, and says whether it did (otherwise the caller sends the API's 404).
 */
export type UiNotFoundPage = (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;

/** Files under this prefix carry a content hash in their name, so they may be cached for good. */
const HASHED_ASSETS_PREFIX = '/assets/';

/**
 * Registers the web UI. When the bundled build is missing (the server was built without `web/`), it
 * logs one warning and registers nothing, so the API still works; a custom directory was already
 * checked by the configuration. Returns the not-found page for unknown navigations (null without a UI).
 */
export async function registerWebUi(app: FastifyInstance, frontend: FrontendConfig, log: FastifyBaseLogger): Promise<UiNotFoundPage | null> {
  const indexPath = join(frontend.directory, 'index.html');
  if (!existsSync(indexPath)) {
    log.warn(`the web UI is not built (no index.html in ${frontend.directory}): run npm run build, or set SVC_FRONTEND_DIST_DIR; the API is served without it`);
    return null;
  }
  await app.register(async (ui) => {
    ui.addHook('onRequest', (request, reply, done) => {
      // Pages and their files are not API calls: the audit trail records what the app does through
      // the API (its logins, reads and changes), not each page load or asset (docs/web-ui.md).
      request.audit.record = false;
      void reply.headers(uiSecurityHeaders);
      // Runs after the app-wide hook, replacing its no-store: hashed files never change, and
      // index.html is revalidated so a new build is picked up at once.
      void reply.header('cache-control', request.url.startsWith(HASHED_ASSETS_PREFIX) ? 'public, max-age=31536000, immutable' : 'no-cache');
      done();
    });
    await ui.register(fastifyStatic, {
      root: frontend.directory,
      wildcard: false,
      index: false,
      redirect: false,
      dotfiles: 'ignore',
      cacheControl: false,
    });
    const sendIndex = (_request: unknown, reply: FastifyReply) => reply.sendFile('index.html');
    for (const path of clientRoutes) {
      ui.get(path, sendIndex);
    }
    const toRoot = (_request: unknown, reply: FastifyReply) => reply.redirect('/', 301);
    ui.get('/ui', toRoot);
    ui.get('/ui/*', toRoot);
  });
  return async (request, reply) => {
    if (!isUiNavigation(request)) return false;
    const page = await readFile(indexPath).catch(() => null);
    if (page === null) return false;
    await reply.code(404).headers(uiSecurityHeaders).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page);
    return true;
  };
}
