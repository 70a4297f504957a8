/**
 * Maps anything thrown while serving a request to a status, headers and an error body of the
 * contract's shape. Client errors keep their message; anything else becomes a generic 500 (or 503
 * when the database cannot be used), logged but never shown.
 */
import type { FastifyBaseLogger } from 'fastify';
import { ApiError, errorBody, errorRegistry, type ErrorBody, type ErrorCode } from '../errors.js';
import { StorageUnavailableError } from '../storage/port/errors.js';

/** A fully formed error response. */
export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
}

const tokenErrors = new Set<ErrorCode>(['invalid_token', 'token_expired', 'invalid_api_key', 'api_key_expired', 'api_key_disabled', 'account_disabled']);

interface FrameworkError {
  code?: string;
  statusCode?: number;
  validation?: { instancePath?: string; params?: Record<string, unknown> }[];
  validationContext?: string;
  message?: string;
}

/** Builds the response for `error`; logs what the caller must not see. */
export function toErrorResponse(error: unknown, log: FastifyBaseLogger): ErrorResponse {
  if (error instanceof ApiError) {
    const response = respond(error.code, error.message, error.param);
    if (error.headers !== undefined) Object.assign(response.headers, error.headers);
    return response;
  }
  const framework = (error ?? {}) as FrameworkError;
  if (Array.isArray(framework.validation)) {
    const first = framework.validation[0];
    const param = first?.instancePath ? first.instancePath.slice(1).split('/')[0] : (first?.params?.['missingProperty'] as string | undefined);
    return respond('invalid_request', framework.message ?? 'The request does not match the API contract', param);
  }
  switch (framework.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return respond('unsupported_media_type', 'Unsupported Content-Type: send application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return respond('payload_too_large', 'Request body is too large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return respond('invalid_request', 'Request body is empty but Content-Type says application/json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return respond('invalid_request', 'Request body is not valid JSON');
  }
  // The storage adapters report a database that cannot be used now (busy, locked, down) this way.
  if (error instanceof StorageUnavailableError) {
    log.error({ err: error }, 'database unavailable');
    return respond('service_unavailable', 'The service is temporarily unavailable');
  }
  if (typeof framework.statusCode === 'number' && framework.statusCode >= 400 && framework.statusCode < 500) {
    return respond('invalid_request', 'The request could not be read');
  }
  log.error({ err: error }, 'unhandled error');
  return respond('internal_error', 'Internal server error');
}

/** The response for `code` with `message`. */
export function respond(code: ErrorCode, message: string, param?: string): ErrorResponse {
  const headers: Record<string, string> = {};
  const { status } = errorRegistry[code];
  if (status === 401) headers['www-authenticate'] = tokenErrors.has(code) ? 'Bearer error="invalid_token"' : 'Bearer';
  if (status === 503) headers['retry-after'] = '1';
  return { status, headers, body: errorBody(code, message, param) };
}
