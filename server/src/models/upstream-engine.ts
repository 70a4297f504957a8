/**
 * The upstream engine: forwards an OpenAI-style request to an OpenAI-compatible server (vLLM,
 * llama.cpp's server, Ollama, …) over kept-alive connections (`upstream-connections.ts`: `node:http`,
 * no per-upstream limit, a request on a reused connection written at once). A stream is passed
 * through chunk by chunk; a plain answer is passed through unchanged. Failures become svc errors (never echoing
 * the upstream's error body): the upstream's 400/422 → 400 `invalid_request`, any other error status → 502 `upstream_error`, no connection →
 * 502 `upstream_unreachable`, no answer (or no next chunk) within the time-out → 504
 * `upstream_timeout`. The upstream API key is sent, never logged.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { PassThrough, type Readable } from 'node:stream';
import { ApiError, errorBody } from '../errors.js';
import { UpstreamConnections, type UpstreamConnectionStats } from './upstream-connections.js';
import type { UpstreamPolicy } from './upstream-policy.js';

/** The error code a connection refused by the upstream policy fails with. */
const REFUSED_ADDRESS = 'ESVC_UPSTREAM_NOT_ALLOWED';

/**
 * A DNS lookup for the upstream agent that refuses addresses the policy does not allow: the check
 * happens on the very addresses the socket connects to, so a host name rebound after the URL was
 * set cannot reach a refused address.
 */
function guardedLookup(policy: UpstreamPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error !== null) return callback(error, '', 0);
      const refused = addresses.find((entry) => !policy.addressMayBeCalled(entry.address, hostname));
      if (refused !== undefined || addresses.length === 0) {
        const failure = Object.assign(new Error(`upstream address not allowed`), { code: REFUSED_ADDRESS });
        return callback(failure, '', 0);
      }
      if ((options as { all?: boolean }).all === true) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/** One call to an upstream. */
export interface UpstreamCall {
  /** The upstream's OpenAI base URL, without a trailing slash (`http://host:8000/v1`). */
  baseUrl: string;
  /** The OpenAI path below the base URL: `/chat/completions`, `/completions` or `/embeddings`. */
  path: string;
  apiKey: string | null;
  body: unknown;
  stream: boolean;
  /** Aborted when svc's own caller goes away. */
  signal?: AbortSignal;
}

/** What the upstream answered (a success; failures throw {@link ApiError}). */
export type UpstreamReply =
  | { kind: 'body'; status: number; contentType: string; body: Buffer }
  | { kind: 'stream'; status: number; contentType: string; stream: Readable };

/** How much of an upstream error body is read (and dropped) to keep the connection reusable. */
const ERROR_BODY_DISCARD_LIMIT = 16 * 1024;
/** The largest plain answer accepted from an upstream. */
const BODY_LIMIT = 64 * 1024 * 1024;
/** How long an idle upstream connection is kept. */
const IDLE_CONNECTION_MS = 30_000;
/** How many checked upstream URLs are remembered (three paths per model). */
const CHECKED_URLS_KEPT = 1024;
/** The longest wait for a connection to be established. */
const MAX_CONNECT_TIMEOUT_MS = 10_000;

/** A checked upstream URL and how to call it. */
interface Target {
  url: URL;
  send: (options: RequestOptions) => ClientRequest;
  options: RequestOptions;
}

/** A response whose headers are in, and whether svc ended it for silence. */
interface Exchange {
  response: IncomingMessage;
  timedOut: () => boolean;
}

/** Why svc ended a call itself: the upstream was silent too long, or did not accept the connection in time. */
class UpstreamTimeout extends Error {
  constructor(readonly phase: 'connect' | 'answer') {
    super(`upstream ${phase} timeout`);
  }
}

/** Forwards requests to upstream servers over kept-alive connections. One per svc server. */
export class UpstreamEngine {
  readonly #timeoutMs: number;
  readonly #connectTimeoutMs: number;
  readonly #connections: UpstreamConnections;
  readonly #policy: UpstreamPolicy;
  /** URLs already checked against the policy, with their request options (never mutated once stored). */
  readonly #checkedUrls = new Map<string, Target>();

  /**
   * @param timeoutMs - how long the upstream may take to start answering, or between two chunks.
   * @param policy - which addresses may be called, checked again at connect time.
   */
  constructor(timeoutMs: number, policy: UpstreamPolicy) {
    this.#timeoutMs = timeoutMs;
    this.#connectTimeoutMs = Math.min(timeoutMs, MAX_CONNECT_TIMEOUT_MS);
    this.#policy = policy;
    this.#connections = new UpstreamConnections(guardedLookup(policy), IDLE_CONNECTION_MS);
  }

  /** Sends the call and resolves to the upstream's success answer. */
  async call(call: UpstreamCall): Promise<UpstreamReply> {
    const target = this.#target(call.baseUrl + call.path);
    const { url } = target;
    const payload = Buffer.from(JSON.stringify(call.body));
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': payload.length,
      accept: call.stream ? 'text/event-stream' : 'application/json',
    };
    if (call.apiKey !== null) headers['authorization'] = `Bearer ${call.apiKey}`;
    let exchange: Exchange;
    try {
      exchange = await this.#send(target, headers, payload, call.signal);
    } catch (error) {
      throw this.#failure(error, url);
    }
    const { response } = exchange;
    const status = response.statusCode ?? 0;
    const contentType = headerValue(response.headers['content-type']) ?? (call.stream ? 'text/event-stream' : 'application/json');
    try {
      if (status >= 400) {
        // Read and dropped (up to a bound), never shown: see upstreamStatusError.
        await readLimited(response, ERROR_BODY_DISCARD_LIMIT).catch(() => undefined);
        throw upstreamStatusError(status);
      }
      if (!call.stream) return { kind: 'body', status, contentType, body: await readLimited(response, BODY_LIMIT) };
    } catch (error) {
      response.once('error', () => undefined).destroy();
      throw this.#failure(exchange.timedOut() ? new UpstreamTimeout('answer') : error, url);
    }
    return { kind: 'stream', status, contentType, stream: this.#passThrough(exchange) };
  }

  /**
   * The URL to call, checked against the policy: an address literal is never looked up, so it is
   * checked here (a stored URL may predate the policy). The policy never changes during the
   * engine's life, so each URL is parsed and checked once.
   */
  #target(text: string): Target {
    const known = this.#checkedUrls.get(text);
    if (known !== undefined) return known;
    const url = new URL(text);
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (url.username !== '' || url.password !== '' || !this.#policy.hostMayBeCalled(host)) throw notAllowed();
    const options: RequestOptions = { protocol: url.protocol, hostname: host, path: url.pathname, method: 'POST', agent: this.#connections.agentFor(url) };
    if (url.port !== '') options.port = Number(url.port);
    const target: Target = { url, send: url.protocol === 'https:' ? httpsRequest : httpRequest, options };
    if (this.#checkedUrls.size >= CHECKED_URLS_KEPT) this.#checkedUrls.clear();
    this.#checkedUrls.set(text, target);
    return target;
  }

  /** Counters of the upstream connections (opened, open, reused, held for the idle check, …). */
  connectionStats(): UpstreamConnectionStats {
    return this.#connections.stats();
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.#connections.close();
  }

  /** Writes the request and resolves to the response once its headers are in. */
  #send({ url, send, options }: Target, headers: Record<string, string | number>, payload: Buffer, signal: AbortSignal | undefined): Promise<Exchange> {
    let timedOut = false;
    return new Promise((resolve, reject) => {
      const request: ClientRequest = send(signal === undefined ? { ...options, headers } : { ...options, headers, signal });
      this.#connections.track(request);
      request.once('error', reject);
      // One time-out for the whole exchange: no answer, or no next chunk, within timeoutMs.
      request.setTimeout(this.#timeoutMs, () => {
        timedOut = true;
        request.destroy(new UpstreamTimeout('answer'));
      });
      request.once('socket', (socket) => {
        if (!socket.connecting) return;
        const connectTimer = setTimeout(() => request.destroy(new UpstreamTimeout('connect')), this.#connectTimeoutMs);
        const stop = () => clearTimeout(connectTimer);
        socket.once('connect', stop);
        request.once('close', stop);
      });
      request.once('response', (response) => {
        if (this.#connections.sentUnsolicitedBytes(response.socket)) {
          // Parsed from bytes the upstream sent before it was asked: not this call's answer.
          response.destroy();
          reject(new ApiError('upstream_error', `The upstream model server at ${url.origin} sent an answer nobody asked for`));
          return;
        }
        // The answer's own errors (a broken stream, the time-out) are the reader's from here on.
        request.off('error', reject);
        request.on('error', (error) => response.destroy(error));
        resolve({ response, timedOut: () => timedOut });
      });
      request.end(payload);
    });
  }

  /** The upstream's stream, chunk by chunk; a stall or a broken connection ends it with an error event. */
  #passThrough({ response: body, timedOut }: Exchange): Readable {
    const output = new PassThrough();
    let ended = false;
    body.on('data', (chunk: Buffer) => {
      if (!output.write(chunk)) body.pause();
    });
    output.on('drain', () => body.resume());
    body.once('end', () => {
      ended = true;
      output.end();
    });
    const broken = () => {
      if (ended) return;
      ended = true;
      const failure = timedOut() ? timeoutError(this.#timeoutMs) : new ApiError('upstream_error', 'The upstream model server broke off the stream');
      output.end(`data: ${JSON.stringify(errorBody(failure.code, failure.message))}\n\n`);
    };
    body.once('error', broken);
    body.once('close', () => {
      if (!body.complete) broken();
    });
    output.once('close', () => {
      if (!ended) body.destroy();
    });
    return output;
  }

  #failure(error: unknown, url: URL): ApiError {
    if (error instanceof ApiError) return error;
    if (error instanceof UpstreamTimeout) {
      return error.phase === 'connect' ? new ApiError('upstream_unreachable', `The upstream model server at ${url.origin} cannot be reached (connect timeout)`) : timeoutError(this.#timeoutMs);
    }
    const code = (error as NodeJS.ErrnoException).code ?? ((error as { cause?: NodeJS.ErrnoException }).cause?.code);
    if (code === REFUSED_ADDRESS) return notAllowed();
    if (code !== undefined && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN'].includes(code)) {
      return new ApiError('upstream_unreachable', `The upstream model server at ${url.origin} cannot be reached (${code})`);
    }
    return new ApiError('upstream_error', `The upstream model server at ${url.origin} failed`);
  }
}

/** The 502 of a call whose upstream address the policy refuses. */
function notAllowed(): ApiError {
  return new ApiError('upstream_unreachable', 'The upstream model server\'s address is not allowed (SVC_UPSTREAM_ALLOWED); an administrator can change the model or the setting');
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function timeoutError(timeoutMs: number): ApiError {
  const seconds = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
  return new ApiError('upstream_timeout', `The upstream model server did not answer within ${seconds} (SVC_UPSTREAM_TIMEOUT_SECONDS)`);
}

/**
 * The svc error for an upstream's error status. The upstream's body is never echoed: it may come
 * from a service that is not a model server at all, and would turn svc into a reader of it.
 */
function upstreamStatusError(status: number): ApiError {
  if (status === 400 || status === 422) return new ApiError('invalid_request', `The upstream model server refused the request (HTTP ${status})`);
  return new ApiError('upstream_error', `The upstream model server answered HTTP ${status}`);
}

/** The whole body, refused past `limit` bytes (read with events: no promise per chunk). */
function readLimited(body: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      body.removeAllListeners('data');
      body.destroy();
      reject(new ApiError('upstream_error', `The upstream model server's answer exceeds ${limit} bytes`));
    });
    let ended = false;
    body.once('end', () => {
      ended = true;
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    body.once('error', reject);
    // Closed without an end or an error: the error is built only then (it captures a stack).
    body.once('close', () => {
      if (!ended) reject(new ApiError('upstream_error', 'The upstream model server broke off its answer'));
    });
  });
}
