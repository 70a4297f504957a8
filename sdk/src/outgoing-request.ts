/**
 * What openapi-fetch builds for a call, without a fetch `Request`: the URL, the request options and
 * the headers the auth middleware completes. The transport hands them to ky, which builds the one
 * `Request` that is sent. A `Request` built here as well would cost every call a second copy of the
 * headers, an `AbortSignal` linked to the caller's (or a new one), and, in ky, `AbortSignal.any` over
 * that signal and ky's own (see `bench/README.md`, "SDK overhead").
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
  /** The options openapi-fetch built (method, body, redirect, …); headers and signal are the fields above. */
  readonly init: RequestInit;

  constructor(url: string | URL, init: RequestInit = {}) {
    this.url = String(url);
    this.init = init;
    this.method = (init.method ?? 'GET').toUpperCase();
    this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    this.signal = init.signal ?? undefined;
  }
}

/** The `Request` class openapi-fetch is given: {@link OutgoingRequest} under the type openapi-fetch declares. */
export const OutgoingRequestClass = OutgoingRequest as unknown as typeof Request;
