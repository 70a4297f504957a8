/**
 * Single sign-on with OpenID Connect: starts a sign-in (authorization code flow with PKCE, `state`
 * and `nonce`), completes it at the callback (state used once and bound to the browser or the CLI
 * that started it, code exchanged, ID token verified), and turns the verified identity into a svc
 * session: the account linked to the provider's `(issuer, subject)`, created on first sign-in, its
 * permissions set from the groups claim on every sign-in. Every outcome is audited with the
 * provider and the subject.
 */
import { randomUUID } from 'node:crypto';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { AuditContext } from '../audit/request-audit.js';
import type { OidcConfig } from '../config.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/openapi.js';
import type { SessionService, TokenPair } from '../services/session-service.js';
import { userFromStore, userOrNull, type UserRecord } from '../auth/records.js';
import type { Clock } from '../runtime/clock.js';
import type { Storage, StorageTx } from '../storage/port/index.js';
import { claimAt, groupsOf, mappedPermissions, permissionChanges } from './group-mapping.js';
import { codeChallenge, digest, digestMatches, randomToken, verifierMatches } from './pkce.js';
import { ProviderClient, callbackUrl, type DeviceAuthorization } from './provider-client.js';

/** How long a started sign-in may take to come back. */
const LOGIN_REQUEST_TTL_MS = 10 * 60 * 1000;
/** How long a CLI has to redeem its one-time code. */
const CLI_CODE_TTL_MS = 2 * 60 * 1000;
const CLI_CODE_PREFIX = 'svc_oc_';
/** A CLI loopback address: http, a loopback host, an explicit port, no query or fragment. */
const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** What the CLI sends to start a sign-in. */
export interface CliLoginRequest {
  redirectUri: string;
  codeChallenge: string;
}

/** A started sign-in: where to send the browser, and the browser binding to set as a cookie (web sign-ins). */
export interface StartedLogin {
  authorizationUrl: string;
  browserBinding: string | null;
}

/** The provider's answer at the callback, as query parameters. */
export interface CallbackParameters {
  code?: string;
  state?: string;
  iss?: string;
  error?: string;
  error_description?: string;
}

/** A completed callback: a browser session, or a redirect to the CLI's loopback address. */
export type CompletedLogin = { kind: 'browser'; tokens: TokenPair } | { kind: 'cli'; redirectTo: string };

const stateInvalid = () =>
  new ApiError('oidc_state_invalid', 'This sign-in is unknown, already used, expired or was started in another browser; start the sign-in again');
const loginFailed = (why: string) => new ApiError('oidc_login_failed', `Single sign-on failed: ${why}`);

/** Runs single sign-on for one configured provider. */
export class OidcService {
  readonly config: OidcConfig;
  readonly #provider: ProviderClient;
  readonly #storage: Storage;
  readonly #sessions: SessionService;
  readonly #audit: AuditTrail | null;
  readonly #clock: () => number;

  constructor(config: OidcConfig, storage: Storage, sessions: SessionService, audit: AuditTrail | null, clock: Clock) {
    this.config = config;
    this.#clock = () => clock.now();
    this.#provider = new ProviderClient(config, this.#clock);
    this.#storage = storage;
    this.#sessions = sessions;
    this.#audit = audit;
  }

  /** What the login page shows. */
  async loginOptions(): Promise<components['schemas']['OidcLoginOptions']> {
    let endSessionSupported = false;
    let deviceFlowSupported = false;
    try {
      const metadata = await this.#provider.metadata();
      endSessionSupported = metadata.end_session_endpoint !== undefined;
      deviceFlowSupported = metadata.device_authorization_endpoint !== undefined;
    } catch {
      // The button is still offered; starting the sign-in reports the provider's trouble.
    }
    return {
      enabled: true,
      display_name: this.config.displayName,
      login_url: '/v1/auth/oidc/login',
      end_session_supported: endSessionSupported,
      device_flow_supported: deviceFlowSupported,
    };
  }

  /** Starts a device sign-in at the provider (RFC 8628). */
  startDeviceLogin(): Promise<DeviceAuthorization> {
    return this.#provider.startDeviceAuthorization();
  }

  /**
   * Polls a device sign-in; once the person approved, signs the account in exactly like the
   * callback does and starts a session.
   */
  async completeDeviceLogin(deviceCode: string, audit: AuditContext): Promise<TokenPair> {
    const answer = await this.#provider.pollDeviceToken(deviceCode).catch((error: unknown) => this.#failed(audit, error));
    if (answer === 'pending') throw new ApiError('oidc_authorization_pending', 'The sign-in has not been approved yet; poll again after the interval');
    if (answer === 'slow_down') throw new ApiError('oidc_slow_down', 'Polling too fast; add 5 seconds to the interval');
    const claims = await this.#provider.verifyIdToken(answer.idToken, null).catch((error: unknown) => this.#failed(audit, error));
    return this.#sessions.startSession(await this.#accountFor(claims, audit));
  }

  /** The configuration for administrators, the client secret hidden. */
  settings(): components['schemas']['OidcSettings'] {
    const { config } = this;
    return {
      enabled: true,
      issuer: config.issuer,
      client_id: config.clientId,
      client_secret_set: config.clientSecret !== null,
      scopes: [...config.scopes],
      redirect_uri: callbackUrl(config),
      username_claim: config.usernameClaim,
      groups_claim: config.groupsClaim,
      group_permissions: Object.fromEntries(Object.entries(config.groupPermissions).map(([group, permissions]) => [group, [...permissions]])),
      display_name: config.displayName,
    };
  }

  /** Starts a sign-in; `cli` when the CLI started it (its loopback address and PKCE challenge). */
  async startLogin(cli: CliLoginRequest | null): Promise<StartedLogin> {
    if (cli !== null) assertLoopback(cli.redirectUri);
    const metadata = await this.#provider.metadata();
    const state = randomToken();
    const nonce = randomToken();
    const codeVerifier = randomToken();
    const browserBinding = cli === null ? randomToken() : null;
    const now = this.#clock();
    await this.#storage.oidc.saveLoginRequest(
      digest(state),
      {
        browserHash: browserBinding === null ? null : digest(browserBinding),
        nonce,
        codeVerifier,
        cliRedirectUri: cli?.redirectUri ?? null,
        cliCodeChallenge: cli?.codeChallenge ?? null,
        expiresAt: now + LOGIN_REQUEST_TTL_MS,
      },
      now,
    );
    const url = new URL(metadata.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', this.config.clientId);
    url.searchParams.set('redirect_uri', callbackUrl(this.config));
    url.searchParams.set('scope', this.config.scopes.join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('nonce', nonce);
    url.searchParams.set('code_challenge', codeChallenge(codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return { authorizationUrl: url.href, browserBinding };
  }

  /**
   * Completes a sign-in at the callback. The state is taken (so it never works twice) before
   * anything else is looked at; a browser sign-in must present the binding cookie its start set.
   * A CLI sign-in that fails after that is answered on the CLI's loopback address, so the CLI can
   * say why.
   */
  async completeLogin(parameters: CallbackParameters, browserBinding: string | null, audit: AuditContext): Promise<CompletedLogin> {
    const now = this.#clock();
    const request = parameters.state === undefined ? null : await this.#storage.oidc.takeLoginRequest(digest(parameters.state), now);
    if (request === null) {
      audit.reason = 'unknown_state';
      throw stateInvalid();
    }
    const isCli = request.cliRedirectUri !== null && request.cliCodeChallenge !== null;
    if (!isCli && (request.browserHash === null || browserBinding === null || !digestMatches(browserBinding, request.browserHash))) {
      audit.reason = 'state_from_another_browser';
      throw stateInvalid();
    }
    try {
      const user = await this.#signIn(parameters, request.nonce, request.codeVerifier, audit);
      if (!isCli) return { kind: 'browser', tokens: await this.#sessions.startSession(user) };
      const code = CLI_CODE_PREFIX + randomToken();
      await this.#storage.oidc.saveCliCode(digest(code), { userId: user.id, codeChallenge: request.cliCodeChallenge ?? '', expiresAt: now + CLI_CODE_TTL_MS }, now);
      return { kind: 'cli', redirectTo: withQuery(request.cliRedirectUri ?? '', { code }) };
    } catch (error) {
      if (!isCli || !(error instanceof ApiError)) throw error;
      return { kind: 'cli', redirectTo: withQuery(request.cliRedirectUri ?? '', { error: error.code, error_description: error.message }) };
    }
  }

  /** Redeems a CLI's one-time code with the verifier of the challenge it started with. */
  async exchangeCliCode(code: string, codeVerifier: string): Promise<TokenPair> {
    const now = this.#clock();
    const stored = code.startsWith(CLI_CODE_PREFIX) ? await this.#storage.oidc.takeCliCode(digest(code), now) : null;
    if (stored === null || !verifierMatches(codeVerifier, stored.codeChallenge)) {
      throw new ApiError('oidc_code_invalid', 'This sign-on code is unknown, already used, expired or does not match the verifier; run svc login --sso again');
    }
    const user = userOrNull(await this.#storage.users.findById(stored.userId));
    if (user === null || !user.enabled) throw new ApiError('account_disabled', 'This account is disabled; ask an administrator');
    return this.#sessions.startSession(user);
  }

  /** The web UI's `path` at the URL people open svc at (`SVC_OIDC_REDIRECT_BASE_URL`, which may hold a path prefix). */
  appUrl(path: `/${string}`): string {
    return `${this.config.redirectBaseUrl}${path}`;
  }

  /** Where a browser goes to end its session at the provider too (RP-initiated logout), else the login page. */
  async logoutUrl(): Promise<string> {
    const loginPage = this.appUrl('/login');
    const endpoint = (await this.#provider.metadata()).end_session_endpoint;
    if (endpoint === undefined) return loginPage;
    return withQuery(endpoint, { client_id: this.config.clientId, post_logout_redirect_uri: loginPage });
  }

  /** Verifies the provider's answer at the callback and returns the signed-in account. */
  async #signIn(parameters: CallbackParameters, nonce: string, codeVerifier: string, audit: AuditContext): Promise<UserRecord> {
    const provider = this.config.issuer;
    // RFC 9207: a provider that names itself must name the one this sign-in went to (mix-up defence).
    if (parameters.iss !== undefined && parameters.iss.replace(/\/+$/, '') !== provider) {
      return this.#refuse(audit, 'issuer_mismatch', null, loginFailed('the answer came from another issuer'));
    }
    if (parameters.error !== undefined) {
      return this.#refuse(audit, `provider_error:${parameters.error}`, null, loginFailed(`the provider answered ${parameters.error}${parameters.error_description === undefined ? '' : ` (${parameters.error_description})`}`));
    }
    if (parameters.code === undefined || parameters.code === '') return this.#refuse(audit, 'no_code', null, loginFailed('the provider sent no authorization code'));
    const claims = await this.#provider
      .exchangeCode(parameters.code, codeVerifier)
      .then((idToken) => this.#provider.verifyIdToken(idToken, nonce))
      .catch((error: unknown) => this.#failed(audit, error));
    return this.#accountFor(claims, audit);
  }

  /** Audits a sign-in the provider's answer failed, and rethrows. */
  #failed(audit: AuditContext, error: unknown): never {
    const reason = error instanceof ApiError ? error.message : 'unexpected';
    this.#event('oidc_login', 'auth.oidc.login', 'failure', { reason, details: { provider: this.config.issuer } });
    audit.reason = reason;
    throw error;
  }

  /** The account of verified claims: linked, created or refused; audits the outcome. */
  async #accountFor(claims: Record<string, unknown> & { sub: string }, audit: AuditContext): Promise<UserRecord> {
    const provider = this.config.issuer;
    const subject = claims.sub;
    audit.target = subject;
    const permissions = mappedPermissions(this.config, groupsOf(claims, this.config.groupsClaim));
    const outcome = await this.#storage.transaction((tx) => this.#resolveAccount(tx, claims, subject, permissions));
    if (outcome.kind === 'refused') return this.#refuse(audit, outcome.reason, subject, outcome.error, outcome.user);
    const { user } = outcome;
    audit.userId = user.id;
    audit.username = user.username;
    const details = { provider, subject };
    if (outcome.kind === 'created') {
      this.#event('oidc_user_created', 'user.create.oidc', 'success', { user, details: { ...details, permissions: user.permissions } });
    } else if (outcome.granted.length > 0 || outcome.revoked.length > 0) {
      this.#event('oidc_permissions_changed', 'user.permissions.oidc', 'success', { user, details: { ...details, granted: outcome.granted, revoked: outcome.revoked } });
    }
    this.#event('oidc_login', 'auth.oidc.login', 'success', { user, details });
    return user;
  }

  /** Finds or creates the account of `(issuer, subject)` and applies the mapped permissions; runs in a transaction. */
  async #resolveAccount(
    tx: StorageTx,
    claims: Record<string, unknown>,
    subject: string,
    permissions: ReturnType<typeof mappedPermissions>,
  ): Promise<
    | { kind: 'created'; user: UserRecord }
    | { kind: 'existing'; user: UserRecord; granted: string[]; revoked: string[] }
    | { kind: 'refused'; reason: string; error: ApiError; user: UserRecord | null }
  > {
    const { users, oidc } = tx;
    const now = this.#clock();
    const linkedId = await oidc.findUserId(this.config.issuer, subject);
    if (linkedId !== null) {
      const user = userOrNull(await users.findById(linkedId, { lock: 'update' }));
      if (user === null) return { kind: 'refused', reason: 'account_missing', error: loginFailed('the linked account no longer exists'), user: null };
      // An administrator's "disabled" outlives any sign-in at the provider.
      if (!user.enabled) return { kind: 'refused', reason: 'account_disabled', error: new ApiError('account_disabled', 'This account is disabled in svc; ask an administrator'), user };
      const { granted, revoked } = permissionChanges(user.permissions, permissions);
      if (granted.length > 0 || revoked.length > 0) await users.setPermissions(user.id, permissions, now);
      await oidc.touch(this.config.issuer, subject, now);
      return { kind: 'existing', user: userOrNull(await users.findById(user.id)) ?? user, granted, revoked };
    }
    const username = claimAt(claims, this.config.usernameClaim);
    if (typeof username !== 'string' || username.trim() === '' || username.length > 256 || /[\u0000-\u001f\u007f]/.test(username)) {
      return { kind: 'refused', reason: 'no_username_claim', error: loginFailed(`the ID token carries no usable ${this.config.usernameClaim} claim`), user: null };
    }
    const existing = userOrNull(await users.findByUsername(username));
    if (existing !== null) {
      // Never a silent takeover: the local account stays its owner's.
      return {
        kind: 'refused',
        reason: 'username_conflict',
        error: new ApiError('oidc_username_conflict', `A svc account named ${username} already exists and does not belong to this provider; ask an administrator to rename or remove it`),
        user: existing,
      };
    }
    const id = randomUUID();
    // No password can match '!': password login is refused for these accounts anyway.
    if ((await users.create({ id, username, passwordHash: '!oidc', source: 'oidc', permissions, mustChangePassword: false, now })) === 'username_taken') {
      return { kind: 'refused', reason: 'username_conflict', error: new ApiError('oidc_username_conflict', `A svc account named ${username} already exists and does not belong to this provider; ask an administrator to rename or remove it`), user: null };
    }
    await oidc.link(this.config.issuer, subject, id, now);
    const created = await users.findById(id);
    if (created === null) throw new Error('the account just created is missing');
    return { kind: 'created', user: userFromStore(created) };
  }

  #refuse(audit: AuditContext, reason: string, subject: string | null, error: ApiError, user: UserRecord | null = null): never {
    audit.reason = reason;
    if (user !== null) {
      audit.userId = user.id;
      audit.username = user.username;
    }
    this.#event('oidc_login', 'auth.oidc.login', 'failure', { reason, user, details: { provider: this.config.issuer, subject } });
    throw error;
  }

  #event(eventType: string, action: string, status: string, facts: { user?: UserRecord | null; reason?: string; details: Record<string, unknown> }): void {
    this.#audit?.recordEvent({
      event_type: eventType,
      action,
      status,
      category: 'auth',
      user_id: facts.user?.id ?? null,
      username: facts.user?.username ?? null,
      target: typeof facts.details['subject'] === 'string' ? facts.details['subject'] : null,
      reason: facts.reason ?? null,
      details: facts.details,
    });
  }
}

/** Refuses anything but an http loopback address with an explicit port. */
function assertLoopback(redirectUri: string): void {
  let url: URL | null = null;
  try {
    url = new URL(redirectUri);
  } catch {
    // reported below
  }
  if (url === null || url.protocol !== 'http:' || !loopbackHosts.has(url.hostname) || url.port === '' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ApiError('invalid_request', 'cli_redirect_uri must be a loopback address such as http://127.0.0.1:53682/callback', { param: 'cli_redirect_uri' });
  }
}

function withQuery(base: string, parameters: Record<string, string>): string {
  const url = new URL(base);
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  return url.href;
}
