/**
 * What openapi-fetch builds for a call, without a fetch `Request`: the URL, the method, the headers
 * the auth middleware completes, and the request options. The transport hands them to ky, which
 * builds the one `Request` that is sent. A `Request` built here as well cost every call a copy of the
 * headers, an `AbortSignal` linked to the caller's (or a new one), and in ky `AbortSignal.any` over
 * that signal and ky's own: about 40 µs of CPU per call on Node 20 (`bench/README.md`, "SDK overhead").
 */

/**
 * A call on its way to the transport: openapi-fetch's `Request` option, so that its middleware reads
 * and sets `method`, `url` and `headers` as on a `Request`.
 */
export class OutgoingRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  /** The caller's signal (the call's `signal` option), if any. */
  readonly signal: AbortSignal | undefined;
  /** The request options for ky: openapi-fetch's (body, redirect, …) with these headers, and the signal only when there is one. */
  readonly init: RequestInit;

  constructor(url: string | URL, { signal, ...init }: RequestInit = {}) {
    this.url = String(url);
    this.method = (init.method ?? 'GET').toUpperCase();
    this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    this.signal = signal ?? undefined;
    // Without a signal of the caller's, ky uses its own as it is, with no AbortSignal.any.
    this.init = { ...init, method: this.method, headers: this.headers, ...(this.signal === undefined ? {} : { signal: this.signal }) };
  }
}

/** The `Request` class openapi-fetch is given: {@link OutgoingRequest} under the type openapi-fetch declares. */
export const OutgoingRequestClass = OutgoingRequest as unknown as typeof Request;
