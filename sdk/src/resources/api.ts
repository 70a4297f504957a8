/**
 * The typed openapi-fetch client the resources call, with the per-call options turned into its
 * request options.
 */
import type { Client } from 'openapi-fetch';
import type { paths } from '../generated/openapi.js';
import type { RequestOptions } from '../request-options.js';

/** What one call hands openapi-fetch besides its parameters and body. */
export type CallInit = {
  signal?: AbortSignal;
  headers?: Record<string, string>;
  fetch?: (request: Request) => Promise<Response>;
};

/** The openapi-fetch client over the contract's paths. */
export interface Api extends Client<paths> {
  /** The openapi-fetch options for a call made with `options`. */
  readonly callInit: (options: RequestOptions | undefined) => CallInit;
}
