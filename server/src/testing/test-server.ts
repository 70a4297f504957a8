/**
 * A real svc server for tests: a fresh `SVC_HOME` in a temporary directory, a real SQLite file, a
 * real HTTP listener on port 0, and a client whose every response is checked against the contract
 * (a violation throws, failing the test).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { loadConfig, type ServerConfig } from '../config.js';
import { ResponseValidator } from '../contract/response-validator.js';
import { BackgroundWrites } from '../runtime/background-writes.js';
import type { Clock } from '../runtime/clock.js';
import { storageConfigOf } from '../storage/open-storage.js';
import { seedSecuritySettings, type TestSecuritySettings } from './security-settings.js';
import { backendEnvironment } from './test-storage.js';

/** A response as the test client sees it. */
export interface TestResponse<Body = any> {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined when there was none. */
  body: Body;
  /** The raw body text. */
  text: string;
}

/** How to send one request. */
export interface RequestOptions {
  /** A JSON body (serialised, with `Content-Type: application/json`). */
  body?: unknown;
  /** A raw body sent as is (set `content-type` in `headers` yourself). */
  rawBody?: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  headers?: Record<string, string>;
}

/** A client of one server whose responses are checked against the contract. */
export interface ContractClient {
  readonly baseUrl: string;
  request<Body = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<Body>>;
}

/** A running test server. */
export interface TestServer extends ContractClient {
  readonly home: string;
  readonly config: ServerConfig;
  readonly app: FastifyInstance;
  /** Resolves once the best-effort writes started so far (a key's `last_used_at`) have settled. */
  backgroundWritesSettled(): Promise<void>;
  /** Stops the server and deletes its home. */
  close(): Promise<void>;
}

const validator = new ResponseValidator();

/** Creates a client for a server at `baseUrl` that checks every response against the contract. */
export function contractClient(baseUrl: string): ContractClient {
  return {
    baseUrl,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      let body: string | undefined;
      if (options.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = JSON.stringify(options.body);
      } else if (options.rawBody !== undefined) {
        body = options.rawBody;
      }
      if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
      const response = await fetch(baseUrl + path, { method, headers, ...(body === undefined ? {} : { body }) });
      const text = await response.text();
      const isJson = (response.headers.get('content-type') ?? '').includes('application/json');
      const parsed: unknown = text !== '' && isJson ? JSON.parse(text) : text === '' ? undefined : text;
      const pathname = new URL(baseUrl + path).pathname;
      const violation = validator.check(method, pathname, response.status, parsed, response.headers.get('content-type'));
      if (violation !== null) throw new Error(`contract violation: ${violation}; body: ${text.slice(0, 500)}`);
      return { status: response.status, headers: response.headers, body: parsed as any, text };
    },
  };
}

/**
 * Starts a server on 127.0.0.1, port 0, with a fresh home.
 *
 * @param options.env - extra environment for {@link loadConfig} (SVC_HOME is set to the temp home).
 * @param options.config - fields that override the loaded configuration.
 * @param options.home - reuse this home instead of a fresh one (it is then not deleted on close).
 * @param options.securitySettings - brute-force settings stored in a fresh database: by default
 *   limits no test reaches (`testSecuritySettings`); `'production'` keeps the real defaults.
 * @param options.withoutAudit - build without the audit trail (benchmarks).
 * @param options.port - listen on this port instead of a free one the system picks (a configuration
 *   that names the server's own URL, such as `SVC_OIDC_REDIRECT_BASE_URL`, needs it before start).
 * @param options.clock - the time the server reads (a `ManualClock` lets a test move it instead of
 *   waiting for a token, key, ban or lockout to expire). Default: the real time.
 * @param options.replaceSecretFingerprints - start as `svc-local --replace-secret-fingerprints` does:
 *   a reused home whose database recorded other secrets takes this start's (a deliberate rotation).
 */
export async function startTestServer(
  options: {
    env?: Record<string, string>;
    config?: Partial<ServerConfig>;
    home?: string;
    securitySettings?: TestSecuritySettings;
    withoutAudit?: boolean;
    port?: number;
    clock?: Clock;
    replaceSecretFingerprints?: boolean;
  } = {},
): Promise<TestServer> {
  const home = options.home ?? (await mkdtemp(join(tmpdir(), 'svc-test-')));
  const backend = await backendEnvironment(home, options.env);
  const config: ServerConfig = { ...loadConfig({ SVC_HOME: home, ...backend, ...options.env }), ...options.config };
  await seedSecuritySettings(storageConfigOf(config), options.securitySettings);
  const backgroundWrites = new BackgroundWrites();
  const app = await buildApp(config, {
    withoutAuditForBenchmark: options.withoutAudit === true,
    strictStorageTransactions: true,
    backgroundWrites,
    replaceSecretFingerprints: options.replaceSecretFingerprints === true,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const address = await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const client = contractClient(address);
  return {
    baseUrl: address,
    home,
    config,
    app,
    request: client.request,
    backgroundWritesSettled: () => backgroundWrites.settled(),
    async close() {
      await app.close();
      if (options.home === undefined) await rm(home, { recursive: true, force: true });
    },
  };
}
