/**
 * Single sign-on fixtures: a test provider and a svc server configured for it, and a sign-in driven
 * through both with the {@link UserAgent}.
 */
import { createServer } from 'node:net';
import { setupAdmin, startTestServer, type LoggedInUser, type TestServer } from '@svc/server/testing';
import { startOidcProvider, type TestOidcProvider } from './oidc-provider.js';
import { UserAgent, type Hop } from './user-agent.js';

/** The group mapping every SSO test server uses. */
export const GROUP_PERMISSIONS = { 'ml-admins': ['admin'], 'ml-users': ['models:read', 'keys:create'] };
export const CLIENT_ID = 'svc-test';
export const CLIENT_SECRET = 'a client secret the provider and svc share';

/** A provider and a svc configured for it, with svc's first admin. */
export interface SsoStack {
  provider: TestOidcProvider;
  server: TestServer;
  admin: LoggedInUser;
  close(): Promise<void>;
}

/** A TCP port free right now. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The `SVC_OIDC_*` environment for `provider` and a svc at `baseUrl`. */
export function ssoEnvironment(provider: TestOidcProvider, baseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SVC_OIDC_ISSUER: provider.issuer,
    SVC_OIDC_CLIENT_ID: CLIENT_ID,
    SVC_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    SVC_OIDC_SCOPES: 'openid profile email groups',
    SVC_OIDC_REDIRECT_BASE_URL: baseUrl,
    SVC_OIDC_GROUP_PERMISSIONS: JSON.stringify(GROUP_PERMISSIONS),
    SVC_OIDC_DISPLAY_NAME: 'Test IdP',
    ...extra,
  };
}

/** Starts a provider and a svc that signs in through it. */
export async function startSsoStack(extraEnv: Record<string, string> = {}): Promise<SsoStack> {
  const provider = await startOidcProvider();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  provider.registerClient({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, svcBaseUrl: baseUrl });
  const server = await startTestServer({ port, env: ssoEnvironment(provider, baseUrl, extraEnv) });
  const admin = await setupAdmin(server);
  return {
    provider,
    server,
    admin,
    async close() {
      await server.close();
      await provider.close();
    },
  };
}

/** What a browser sign-in produced. */
export interface BrowserSignIn {
  agent: UserAgent;
  hops: Hop[];
  /** The last hop: svc's answer at its callback. */
  callback: Hop;
}

/**
 * Signs in as `username` the way a browser does: svc's login URL, the provider's login form, back to
 * svc's callback. Stops at the callback's answer (not following it into the web UI).
 */
export async function browserSignIn(stack: SsoStack, username: string, agent = new UserAgent()): Promise<BrowserSignIn> {
  const hops = await agent.follow(`${stack.server.baseUrl}/v1/auth/oidc/login`);
  const form = hops.at(-1);
  if (form === undefined || form.status !== 200 || !form.url.includes('/interaction/')) throw new Error(`expected the provider's login form, got ${JSON.stringify(form)}`);
  const submitted = await agent.request(`${form.url}/login`, { method: 'POST', form: { username } });
  if (submitted.location === null) throw new Error(`the provider did not accept ${username}: ${submitted.body.slice(0, 200)}`);
  const rest = await agent.follow(submitted.location, (next) => next.origin === stack.server.baseUrl && next.pathname !== '/v1/auth/oidc/callback');
  const all = [...hops, submitted, ...rest];
  const callback = [...all].reverse().find((hop) => hop.url.startsWith(`${stack.server.baseUrl}/v1/auth/oidc/callback`));
  if (callback === undefined) throw new Error(`never reached svc's callback: ${all.map((hop) => `${hop.status} ${hop.url}`).join(' -> ')}`);
  return { agent, hops: all, callback };
}

/** Exchanges the browser's `svc_session` cookie for an access token (what the web UI does on load). */
export async function browserAccessToken(stack: SsoStack, agent: UserAgent): Promise<string> {
  const hop = await agent.request(`${stack.server.baseUrl}/v1/auth/session/refresh`, { method: 'POST', json: {} });
  if (hop.status !== 200) throw new Error(`session refresh: ${hop.status} ${hop.body}`);
  return (JSON.parse(hop.body) as { access_token: string }).access_token;
}
