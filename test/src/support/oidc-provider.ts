/**
 * A real OpenID provider for the single sign-on tests: `oidc-provider` (OpenID-certified) on a real
 * HTTP listener on port 0, with its own RSA signing keys, a registered svc client, a login page
 * (a username form, no password: the tests are about svc, not the provider's login) and accounts
 * whose groups a test may change. `rotateKeys()` replaces the signing key (the old one leaves the
 * JWKS); `rewriteIdTokens` lets a test alter the ID tokens the token endpoint answers (tampered,
 * re-signed for another audience) the way a compromised network path or provider would.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';

/** A person at the provider. */
export interface ProviderAccount {
  subject: string;
  username: string;
  email: string;
  groups: string[];
}

/** How the svc client is registered. */
export interface ProviderClientRegistration {
  clientId: string;
  clientSecret: string;
  /** svc's URL (`SVC_OIDC_REDIRECT_BASE_URL`). */
  svcBaseUrl: string;
}

/** A running test provider. */
export interface TestOidcProvider {
  readonly issuer: string;
  /** Accounts by username; tests add accounts and change groups here. */
  readonly accounts: Map<string, ProviderAccount>;
  /** The private signing key in use (to re-sign altered ID tokens). */
  readonly signingKey: () => JWK;
  /** Registers svc as a client; call before svc starts signing in. */
  registerClient(registration: ProviderClientRegistration): void;
  /** Replaces the signing key with a new one (new `kid`); the old key leaves the JWKS. */
  rotateKeys(): Promise<void>;
  /** Alters every ID token the token endpoint answers while set. */
  rewriteIdTokens: ((idToken: string) => Promise<string>) | null;
  /** How many times the JWKS was read. */
  readonly jwksReads: () => number;
  close(): Promise<void>;
}

/** Adds an account with `groups` to `provider` and returns it. */
export function addAccount(provider: TestOidcProvider, username: string, groups: string[]): ProviderAccount {
  const account = { subject: `sub-${username}-${Math.random().toString(36).slice(2, 8)}`, username, email: `${username}@example.test`, groups };
  provider.accounts.set(username, account);
  return account;
}

async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: `key-${Math.random().toString(36).slice(2, 10)}`, alg: 'RS256', use: 'sig' };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Starts a provider on 127.0.0.1, port 0. */
export async function startOidcProvider(): Promise<TestOidcProvider> {
  const accounts = new Map<string, ProviderAccount>();
  let clients: Configuration['clients'] = [];
  let key = await newSigningKey();
  let jwksReads = 0;
  let current: Provider | null = null;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (current === null) {
      response.statusCode = 503;
      response.end();
      return;
    }
    void current.callback()(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const findBySubject = (subject: string) => [...accounts.values()].find((account) => account.subject === subject);

  const handle: TestOidcProvider = {
    issuer,
    accounts,
    signingKey: () => key,
    rewriteIdTokens: null,
    jwksReads: () => jwksReads,
    registerClient(registration) {
      clients = [
        {
          client_id: registration.clientId,
          client_secret: registration.clientSecret,
          redirect_uris: [`${registration.svcBaseUrl}/v1/auth/oidc/callback`],
          post_logout_redirect_uris: [`${registration.svcBaseUrl}/login`],
          grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ];
      current = build();
    },
    async rotateKeys() {
      key = await newSigningKey();
      current = build();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  function build(): Provider {
    const provider = new Provider(issuer, {
      clients,
      jwks: { keys: [key] },
      cookies: { keys: ['test cookie signing key for the provider'] },
      pkce: { required: () => true },
      conformIdTokenClaims: false,
      ttl: { Interaction: 600, Grant: 3600, Session: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60, DeviceCode: 600 },
      claims: { openid: ['sub'], profile: ['preferred_username', 'name'], email: ['email'], groups: ['groups'] },
      scopes: ['openid', 'profile', 'email', 'groups'],
      features: {
        devInteractions: { enabled: false },
        deviceFlow: { enabled: true },
        rpInitiatedLogout: {
          enabled: true,
          // The default page loads a web font; this one is self-contained.
          async logoutSource(context, form) {
            context.body = `<!doctype html><html><head><title>Test provider sign-out</title></head><body><h1>Sign out of the test provider?</h1>${form}<button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button></body></html>`;
          },
        },
      },
      interactions: { url: (_context, interaction) => `/interaction/${interaction.uid}` },
      async findAccount(_context, subject) {
        const account = findBySubject(subject);
        if (account === undefined) return undefined;
        return {
          accountId: subject,
          async claims() {
            return { sub: subject, preferred_username: account.username, name: account.username, email: account.email, groups: [...account.groups] };
          },
        };
      },
      // svc is a first-party client: no consent screen, every requested scope and claim granted.
      async loadExistingGrant(context: KoaContextWithOIDC) {
        const { client, session } = context.oidc;
        if (client === undefined || session?.accountId === undefined) return undefined;
        const grant = new context.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
        grant.addOIDCScope('openid profile email groups');
        grant.addOIDCClaims(['preferred_username', 'name', 'email', 'groups']);
        await grant.save();
        return grant;
      },
    });
    provider.use(async (context, next) => {
      if (context.path === '/jwks') jwksReads += 1;
      const match = /^\/interaction\/([^/]+)(\/login)?$/.exec(context.path);
      if (match === null) {
        await next();
        if (context.path === '/token' && handle.rewriteIdTokens !== null && typeof (context.body as { id_token?: unknown } | undefined)?.id_token === 'string') {
          const body = context.body as { id_token: string };
          context.body = { ...body, id_token: await handle.rewriteIdTokens(body.id_token) };
        }
        return;
      }
      const details = await provider.interactionDetails(context.req, context.res);
      if (match[2] === undefined || context.method !== 'POST') {
        context.type = 'html';
        context.body = loginPage(match[1] ?? '', '');
        return;
      }
      const username = (await readForm(context.req)).get('username') ?? '';
      const account = accounts.get(username);
      if (account === undefined || details.prompt.name !== 'login') {
        context.type = 'html';
        context.body = loginPage(match[1] ?? '', `No account named ${username}`);
        return;
      }
      const redirectTo = await provider.interactionResult(context.req, context.res, { login: { accountId: account.subject } }, { mergeWithLastSubmission: false });
      context.status = 303;
      context.redirect(redirectTo);
    });
    return provider;
  }

  return handle;
}

function loginPage(uid: string, message: string): string {
  return `<!doctype html><html><head><title>Test provider sign-in</title></head><body>
<h1>Test provider</h1>${message === '' ? '' : `<p role="alert">${escapeHtml(message)}</p>`}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label>Username <input name="username" id="provider-username" autofocus></label>
<button type="submit" id="provider-submit">Continue</button>
</form></body></html>`;
}
