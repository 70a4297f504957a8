/**
 * The svc client: one object with a resource per part of the API, authenticated by an API key or by
 * `login()` (with automatic refresh), with timeouts, safe retries and typed errors.
 */
import createFetchClient from 'openapi-fetch';
import { authMiddleware, type ApiKeySource } from './auth-middleware.js';
import { readEnvironment } from './environment.js';
import { SvcError } from './errors.js';
import type { paths } from './generated/openapi.js';
import type { Api } from './resources/api.js';
import { AuditResource } from './resources/audit.js';
import { AuthResource } from './resources/auth.js';
import { HealthResource } from './resources/health.js';
import { InferenceResource } from './resources/inference.js';
import { ModelRegistrationsResource, ModelsResource } from './resources/models.js';
import { CacheResource, ClusterResource, MonitoringResource, VirtualenvsResource } from './resources/operations.js';
import { KeysResource } from './resources/keys.js';
import { SecurityResource } from './resources/security.js';
import { SetupResource } from './resources/setup.js';
import { UsageResource } from './resources/usage.js';
import { UsersResource } from './resources/users.js';
import { Session } from './session.js';
import { MemoryTokenStore, type TokenStore } from './token-store.js';
import { OutgoingRequestClass } from './outgoing-request.js';
import type { RequestOptions } from './request-options.js';
import type { CallInit } from './resources/api.js';
import { createTransport, type Transport } from './transport.js';
import type { BrowserSession, TokenPair } from './types.js';

/** Everything a {@link Client} can be told. */
export interface ClientOptions {
  /**
   * The server, e.g. `http://127.0.0.1:9997`.
   * @default process.env.SVC_ENDPOINT (in Node, Deno and Bun)
   */
  baseUrl?: string;
  /**
   * An API key (`sk-svc-…`), or a function returning one. Sent with every call while no `login()`
   * session exists (after `login()`, the session's token is sent instead).
   * @default process.env.SVC_API_KEY (in Node, Deno and Bun)
   */
  apiKey?: ApiKeySource;
  /**
   * The `fetch` to call (for tests, proxies or instrumentation).
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
  /**
   * Milliseconds one attempt may take before it fails with `APIConnectionTimeoutError`.
   * @default 60000
   */
  timeout?: number;
  /**
   * Retries of idempotent calls (GET, PUT, DELETE) after 408, 429, 5xx or a connection failure.
   * @default 2
   */
  maxRetries?: number;
  /**
   * Where the session of `login()` is kept.
   * @default a new MemoryTokenStore
   */
  tokenStore?: TokenStore;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
}

/**
 * A client of one svc server.
 *
 * @example
 * const client = new Client({ baseUrl: 'http://127.0.0.1:9997', apiKey: process.env.SVC_API_KEY });
 * const me = await client.auth.me();
 */
export class Client {
  /** The server's base URL, without a trailing slash. */
  readonly baseUrl: string;
  readonly health: HealthResource;
  readonly setup: SetupResource;
  readonly auth: AuthResource;
  readonly users: UsersResource;
  readonly keys: KeysResource;
  /** Running models: list, get, launch, stop. */
  readonly models: ModelsResource;
  /** Model families: list, register, unregister. */
  readonly modelRegistrations: ModelRegistrationsResource;
  /** Chat completions, completions and embeddings (streamed or not). */
  readonly inference: InferenceResource;
  /** The server's model cache. */
  readonly cache: CacheResource;
  /** The server's per-model virtual environments. */
  readonly virtualenvs: VirtualenvsResource;
  /** The server's recent log lines. */
  readonly cluster: ClusterResource;
  /** Prometheus metrics. */
  readonly monitoring: MonitoringResource;
  /** Brute-force settings, bans and locked accounts (`admin`). */
  readonly security: SecurityResource;
  /** The audit trail: search, filter options, export, verify (`admin`). */
  readonly audit: AuditResource;
  /** Metered usage over time: one's own, or everyone's with `usage:read_all`. */
  readonly usage: UsageResource;
  readonly #session: Session;

  constructor(options: ClientOptions = {}) {
    const environment = readEnvironment();
    const baseUrl = options.baseUrl ?? environment.baseUrl;
    if (baseUrl === undefined) throw new SvcError('svc Client needs a baseUrl (or SVC_ENDPOINT in the environment)');
    this.baseUrl = checkBaseUrl(baseUrl);
    let session: Session | undefined;
    const transport = createTransport({
      // Looked up per call, so a fetch patched after construction (msw's `server.listen()`) is used.
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      timeoutMs: options.timeout ?? 60_000,
      maxRetries: options.maxRetries ?? 2,
      onExpiredToken: (stale) => session?.replaceExpired(stale) ?? Promise.resolve(null),
    });
    const fetchClient = createFetchClient<paths>({ baseUrl: this.baseUrl, Request: OutgoingRequestClass, fetch: transport.send, ...(options.headers === undefined ? {} : { headers: options.headers }) });
    const api: Api = Object.assign(fetchClient, { callInit: (call: RequestOptions | undefined) => callInit(transport, call) });
    session = this.#session = new Session(options.tokenStore ?? new MemoryTokenStore(), api);
    api.use(authMiddleware(options.apiKey ?? environment.apiKey, this.#session));
    this.health = new HealthResource(api);
    this.setup = new SetupResource(api);
    this.auth = new AuthResource(api, (pair) => this.#session.adopt(pair));
    this.users = new UsersResource(api);
    this.keys = new KeysResource(api);
    this.models = new ModelsResource(api);
    this.modelRegistrations = new ModelRegistrationsResource(api);
    this.inference = new InferenceResource(api);
    this.cache = new CacheResource(api);
    this.virtualenvs = new VirtualenvsResource(api);
    this.cluster = new ClusterResource(api);
    this.monitoring = new MonitoringResource(api);
    this.security = new SecurityResource(api);
    this.audit = new AuditResource(api);
    this.usage = new UsageResource(api);
  }

  /** Logs in; every later call carries the access token, refreshed automatically. */
  login(username: string, password: string): Promise<TokenPair> {
    return this.#session.login(username, password);
  }

  /**
   * Logs in for a web page served by the svc server (same origin): the refresh token goes into an
   * HttpOnly, SameSite=Strict cookie that page scripts cannot read; only the short-lived access token
   * is kept, in the token store (memory by default). Refresh and {@link Client.logout} use the cookie.
   *
   * @example
   * const client = new Client({ baseUrl: location.origin });
   * if (!(await client.resumeBrowserSession())) await client.startBrowserSession(username, password);
   */
  startBrowserSession(username: string, password: string): Promise<BrowserSession> {
    return this.#session.startBrowserSession(username, password);
  }

  /**
   * Resumes the browser session whose cookie survived a page reload. Resolves true when the server
   * accepted the cookie (the client is logged in again), false when there is no valid session.
   */
  resumeBrowserSession(): Promise<boolean> {
    return this.#session.resumeBrowserSession();
  }

  /** Revokes the session's refresh token on the server and forgets the session. */
  logout(): Promise<void> {
    return this.#session.logout();
  }

  /** The base URL for OpenAI-compatible SDKs (`{baseUrl}/v1`); pass an svc API key as their key. */
  get openaiBaseUrl(): string {
    return openaiBaseUrl(this.baseUrl);
  }
}

/**
 * The base URL without its trailing slashes. svc's routes carry their own `/v1`, so a base URL that
 * ends in `/v1` (the OpenAI-style base URL) would reach `/v1/v1/…` and a bare 404: refused at once.
 */
function checkBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.trim().replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(trimmed, globalThis.location?.href);
  } catch {
    throw new SvcError(`svc Client: baseUrl "${baseUrl}" is not a URL (e.g. http://127.0.0.1:9997)`);
  }
  if (/\/v1$/i.test(parsed.pathname)) {
    throw new SvcError(
      `svc Client: baseUrl "${baseUrl}" ends in /v1, but svc's routes already start with /v1: use "${trimmed.replace(/\/v1$/i, '')}" (the /v1 URL is for OpenAI-compatible SDKs: client.openaiBaseUrl)`,
    );
  }
  return trimmed;
}

/** openapi-fetch's options for one call: the caller's signal and headers, and the transport with the call's limits. */
function callInit(transport: Transport, options: RequestOptions | undefined): CallInit {
  if (options === undefined) return {};
  const init: CallInit = {};
  if (options.signal !== undefined) init.signal = options.signal;
  if (options.headers !== undefined) init.headers = options.headers;
  if (options.timeout !== undefined || options.maxRetries !== undefined) init.fetch = transport.with({ timeoutMs: options.timeout, maxRetries: options.maxRetries });
  return init;
}

/**
 * The base URL an OpenAI-compatible SDK needs for an svc server.
 *
 * @example
 * new OpenAI({ baseURL: openaiBaseUrl('http://127.0.0.1:9997'), apiKey: 'sk-svc-…' });
 */
export function openaiBaseUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/v1`;
}
