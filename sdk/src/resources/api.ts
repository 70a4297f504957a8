/**
 * The typed openapi-fetch client the resources call.
 */
import type { Client } from 'openapi-fetch';
import type { paths } from '../generated/openapi.js';

/** The openapi-fetch client over the contract's paths. */
export type Api = Client<paths>;
