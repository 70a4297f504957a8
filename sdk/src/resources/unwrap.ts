/**
 * Turns an openapi-fetch result into the data or a typed error.
 */
import { APIConnectionError, APIError, InternalServerError, SvcError } from '../errors.js';

/** What openapi-fetch resolves to. */
interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Resolves to the data of a success, or throws the {@link APIError} subclass for the status. */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await call;
  } catch (error) {
    if (error instanceof SvcError || (error instanceof Error && error.name === 'AbortError')) throw error;
    throw new APIConnectionError(`Could not reach the svc server: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (!result.response.ok) throw APIError.from(result.response.status, result.error, result.response.headers);
  return result.data as T;
}

/** A streamed success: its body, not read yet, and the answer's headers. */
export interface StreamedAnswer {
  body: ReadableStream<Uint8Array>;
  headers: Headers;
}

/**
 * {@link unwrap} for a call made with `parseAs: 'stream'`: the unread body of a success, or the
 * {@link APIError} subclass for the status of a failure.
 */
export async function unwrapStream(call: Promise<FetchResult<unknown>>): Promise<StreamedAnswer> {
  const response = await unwrap(call.then((result) => ({ ...result, data: result.response })));
  if (response.body === null) throw new InternalServerError(502, undefined, response.headers, 'The server answered a stream request without a body');
  return { body: response.body, headers: response.headers };
}
