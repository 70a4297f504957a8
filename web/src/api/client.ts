/**
 * The one SDK client of the web UI. It talks to the server that served the page (same origin), keeps
 * the access token in memory only (the SDK's default MemoryTokenStore) and the refresh token in the
 * HttpOnly session cookie (see `docs/web-ui.md`). Every call of the UI goes through it.
 */
import { Client } from '@svc/sdk';

/** The SDK client every page uses. */
export const client = new Client({ baseUrl: window.location.origin, maxRetries: 1, timeout: 30_000 });
