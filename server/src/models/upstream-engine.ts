/**
 * The upstream engine: forwards an OpenAI-style request to an OpenAI-compatible server (vLLM,
 * llama.cpp's server, Ollama, …) over keep-alive connections. A stream is passed through chunk by
 * chunk; a plain answer is passed through unchanged. Failures become svc errors (never echoing
 * the upstream's error body): the upstream's 400/422 → 400 `invalid_request`, any other error status → 502 `upstream_error`, no connection →
 * 502 `upstream_unreachable`, no answer (or no next chunk) within the time-out → 504
 * `upstream_timeout`. The upstream API key is sent, never logged.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { Agent, errors, request } from 'undici';
import { ApiError, errorBody } from '../errors.js';
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

/** Forwards requests to upstream servers (undici, keep-alive connections). One per svc server. */
export class UpstreamEngine {
  readonly #timeoutMs: number;
  readonly #agent: Agent;
  readonly #policy: UpstreamPolicy;

  /**
   * @param timeoutMs - how long the upstream may take to start answering, or between two chunks.
   * @param policy - which addresses may be called, checked again at connect time.
   */
  constructor(timeoutMs: number, policy: UpstreamPolicy) {
    this.#timeoutMs = timeoutMs;
    this.#policy = policy;
    this.#agent = new Agent({
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 30_000,
      connectTimeout: Math.min(timeoutMs, 10_000),
      connect: { lookup: guardedLookup(policy) },
    });
  }

  /** Sends the call and resolves to the upstream's success answer. */
  async call(call: UpstreamCall): Promise<UpstreamReply> {
    const url = new URL(call.baseUrl + call.path);
    // An address literal is never looked up, so it is checked here (a stored URL may predate the policy).
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (url.username !== '' || url.password !== '' || !this.#policy.hostMayBeCalled(host)) throw notAllowed();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: call.stream ? 'text/event-stream' : 'application/json',
    };
    if (call.apiKey !== null) headers['authorization'] = `Bearer ${call.apiKey}`;
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(call.body),
        dispatcher: this.#agent,
        ...(call.signal === undefined ? {} : { signal: call.signal }),
      });
    } catch (error) {
      throw this.#failure(error, url);
    }
    const status = response.statusCode;
    const contentType = headerValue(response.headers['content-type']) ?? (call.stream ? 'text/event-stream' : 'application/json');
    try {
      if (status >= 400) {
        // Read and dropped (up to a bound), never shown: see upstreamStatusError.
        await response.body.dump({ limit: ERROR_BODY_DISCARD_LIMIT }).catch(() => undefined);
        throw upstreamStatusError(status);
      }
      if (!call.stream) return { kind: 'body', status, contentType, body: await readLimited(response.body, BODY_LIMIT) };
    } catch (error) {
      response.body.once('error', () => undefined).destroy();
      throw this.#failure(error, url);
    }
    return { kind: 'stream', status, contentType, stream: this.#passThrough(response.body) };
  }

  /** Closes the kept-alive connections. */
  close(): void {
    void this.#agent.close();
  }

  /** The upstream's stream, chunk by chunk; a stall or a broken connection ends it with an error event. */
  #passThrough(body: Readable): Readable {
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
    body.once('error', (error) => {
      if (ended) return;
      ended = true;
      const failure = error instanceof errors.BodyTimeoutError ? timeoutError(this.#timeoutMs) : new ApiError('upstream_error', 'The upstream model server broke off the stream');
      output.end(`data: ${JSON.stringify(errorBody(failure.code, failure.message))}\n\n`);
    });
    output.once('close', () => {
      if (!ended) body.destroy();
    });
    return output;
  }

  #failure(error: unknown, url: URL): ApiError {
    if (error instanceof ApiError) return error;
    if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) return timeoutError(this.#timeoutMs);
    if (error instanceof errors.ConnectTimeoutError) return new ApiError('upstream_unreachable', `The upstream model server at ${url.origin} cannot be reached (connect timeout)`);
    const code = (error as NodeJS.ErrnoException).code ?? ((error as { cause?: NodeJS.ErrnoException }).cause?.code);
    if (code === REFUSED_ADDRESS) return notAllowed();
    if (code !== undefined && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'].includes(code)) {
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

async function readLimited(body: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ApiError('upstream_error', `The upstream model server's answer exceeds ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
