/**
 * The paths the web UI's router answers. The server sends `index.html` for exactly these, so a
 * reload or a bookmark opens the right page, while every other unknown path (an old per-model demo
 * page `/{model_uid}`, `/v1/ui/*`, a typo) stays a 404 in the API's error shape.
 *
 * Adding a page to the web UI means adding its path here too (`web/src/pages/registry.tsx` lists them
 * on the client side; the browser test opens each one directly).
 */
export const clientRoutes: readonly string[] = ['/', '/setup', '/login', '/users', '/keys', '/security', '/audit', '/playground', '/usage'];
