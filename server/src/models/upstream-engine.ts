/**
 * The upstream engine: forwards an OpenAI-style request to an OpenAI-compatible server (vLLM,
 * llama.cpp's server, Ollama, …) over keep-alive connections. A stream is passed through chunk by
 * chunk; a plain answer is passed through unchanged. Failures become svc errors: the upstream's
 * 400/422 → 400 `invalid_request`, any other error status → 502 `upstream_error`, no connection →
 * 502 `upstream_unreachable`, no answer (or no next chunk) within the time-out → 504
 * `upstream_timeout`. The upstream API key is sent, never logged.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { PassThrough, type Readable } from 'node:stream';
import { ApiError, errorBody } from '../errors.js';

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

/** The longest upstream error body read for its message. */
const ERROR_BODY_LIMIT = 16 * 1024;
/** The largest plain answer accepted from an upstream. */
const BODY_LIMIT = 64 * 1024 * 1024;

class UpstreamTimeout extends Error {}

/** Forwards requests to upstream servers. One per svc server; its agents keep connections open. */
export class UpstreamEngine {
  readonly #timeoutMs: number;
  readonly #httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 1024 });
  readonly #httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 1024 });

  /** @param timeoutMs - how long the upstream may take to start answering, or between two chunks. */
  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** Sends the call and resolves to the upstream's success answer. */
  call(call: UpstreamCall): Promise<UpstreamReply> {
    const url = new URL(call.baseUrl + call.path);
    const payload = Buffer.from(JSON.stringify(call.body));
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': payload.length,
      accept: call.stream ? 'text/event-stream' : 'application/json',
    };
    if (call.apiKey !== null) headers['authorization'] = `Bearer ${call.apiKey}`;
    const secure = url.protocol === 'https:';
    return new Promise<UpstreamReply>((resolve, reject) => {
      const request = (secure ? httpsRequest : httpRequest)(url, { method: 'POST', headers, agent: secure ? this.#httpsAgent : this.#httpAgent });
      let timer: NodeJS.Timeout | undefined = setTimeout(() => request.destroy(new UpstreamTimeout()), this.#timeoutMs);
      const settle = () => {
        if (timer !== undefined) clearTimeout(timer);
        timer = undefined;
      };
      const onAbort = () => request.destroy(new Error('caller went away'));
      call.signal?.addEventListener('abort', onAbort, { once: true });
      request.once('close', () => call.signal?.removeEventListener('abort', onAbort));
      request.on('error', (error) => {
        settle();
        reject(this.#connectionError(error, url));
      });
      request.on('response', (response) => {
        const status = response.statusCode ?? 502;
        const contentType = response.headers['content-type'] ?? (call.stream ? 'text/event-stream' : 'application/json');
        if (status >= 400) {
          readLimited(response, ERROR_BODY_LIMIT, () => timer?.refresh()).then(
            (body) => {
              settle();
              reject(upstreamStatusError(status, body));
            },
            (error: unknown) => {
              settle();
              reject(this.#connectionError(error as Error, url));
            },
          );
          return;
        }
        if (!call.stream) {
          readLimited(response, BODY_LIMIT, () => timer?.refresh()).then(
            (body) => {
              settle();
              resolve({ kind: 'body', status, contentType, body });
            },
            (error: unknown) => {
              settle();
              reject(this.#connectionError(error as Error, url));
            },
          );
          return;
        }
        settle();
        resolve({ kind: 'stream', status, contentType, stream: this.#passThrough(response) });
      });
      request.end(payload);
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.#httpAgent.destroy();
    this.#httpsAgent.destroy();
  }

  /** The upstream's stream, chunk by chunk; a stall or a broken connection ends it with an error event. */
  #passThrough(response: IncomingMessage): Readable {
    const output = new PassThrough();
    let ended = false;
    const fail = (error: ApiError) => {
      if (ended) return;
      ended = true;
      clearTimeout(idle);
      response.destroy();
      output.end(`data: ${JSON.stringify(errorBody(error.code, error.message))}\n\n`);
    };
    const idle = setTimeout(() => fail(timeoutError(this.#timeoutMs)), this.#timeoutMs);
    response.on('data', (chunk: Buffer) => {
      idle.refresh();
      if (!output.write(chunk)) response.pause();
    });
    output.on('drain', () => response.resume());
    response.on('end', () => {
      if (ended) return;
      ended = true;
      clearTimeout(idle);
      output.end();
    });
    response.on('error', () => fail(new ApiError('upstream_error', 'The upstream model server broke off the stream')));
    response.on('aborted', () => fail(new ApiError('upstream_error', 'The upstream model server broke off the stream')));
    output.on('close', () => {
      clearTimeout(idle);
      if (!response.complete) response.destroy();
    });
    return output;
  }

  #connectionError(error: Error, url: URL): ApiError {
    if (error instanceof ApiError) return error;
    if (error instanceof UpstreamTimeout) return timeoutError(this.#timeoutMs);
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT'].includes(code)) {
      return new ApiError('upstream_unreachable', `The upstream model server at ${url.origin} cannot be reached (${code})`);
    }
    return new ApiError('upstream_error', `The upstream model server at ${url.origin} failed: ${error.message}`);
  }
}

function timeoutError(timeoutMs: number): ApiError {
  const seconds = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
  return new ApiError('upstream_timeout', `The upstream model server did not answer within ${seconds} (SVC_UPSTREAM_TIMEOUT_SECONDS)`);
}

/** The svc error for an upstream's error status, carrying the upstream's own message. */
function upstreamStatusError(status: number, body: Buffer): ApiError {
  const message = upstreamMessage(body);
  if (status === 400 || status === 422) return new ApiError('invalid_request', `The upstream model server refused the request: ${message}`);
  return new ApiError('upstream_error', `The upstream model server answered ${status}: ${message}`);
}

function upstreamMessage(body: Buffer): string {
  const text = body.toString('utf8');
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; detail?: unknown; message?: unknown };
    const candidates = [typeof parsed.error === 'object' ? parsed.error?.message : parsed.error, parsed.detail, parsed.message];
    const found = candidates.find((c): c is string => typeof c === 'string' && c !== '');
    if (found !== undefined) return truncate(found);
  } catch {
    // not JSON: use the text
  }
  return truncate(text.trim() === '' ? 'no message' : text.trim());
}

function truncate(text: string): string {
  const oneLine = text.replace(/[\r\n]+/g, ' ');
  return oneLine.length > 300 ? `${oneLine.slice(0, 300)}…` : oneLine;
}

function readLimited(response: IncomingMessage, limit: number, onChunk: () => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      onChunk();
      size += chunk.length;
      if (size > limit) {
        response.destroy();
        reject(new ApiError('upstream_error', `The upstream model server's answer exceeds ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    response.on('end', () => resolve(Buffer.concat(chunks)));
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('the upstream broke off its answer')));
  });
}
