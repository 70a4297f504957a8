/**
 * Turns an openapi-fetch result into the data or a typed error.
 */
import { APIConnectionError, APIError, APIUserAbortError, InternalServerError, SvcError } from '../errors.js';

/** What openapi-fetch resolves to. */
export interface FetchResult<T> {
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
    if (error instanceof SvcError) throw error;
    if (error instanceof Error && error.name === 'AbortError') throw new APIUserAbortError({ cause: error });
    // openapi-fetch parses a success body as JSON: a body that is not JSON fails here.
    if (error instanceof SyntaxError) throw new SvcError(`The svc server answered with a body that is not valid JSON: ${error.message}`, { cause: error });
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

/**
 * {@link unwrapStream} for a call that asked for server-sent events: an answer of another type (a
 * server or mock that ignored `stream: true` and answered JSON) throws an {@link APIError} naming what
 * came, rather than a stream that ends empty.
 */
export async function unwrapEventStream(call: Promise<FetchResult<unknown>>): Promise<StreamedAnswer> {
  const answer = await unwrapStream(call);
  const contentType = answer.headers.get('content-type') ?? '';
  if (/^text\/event-stream\b/i.test(contentType)) return answer;
  const text = await new Response(answer.body).text().catch(() => '');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON either: keep the text.
  }
  throw new APIError(200, body, answer.headers, `Asked for a stream, the svc server answered ${contentType === '' ? 'without a Content-Type' : contentType} instead of text/event-stream`);
}
