/**
 * The server's one registry of error codes: each stable `code` (the `ErrorCode` enum of the
 * contract) with its HTTP status and OpenAI-style error `type`. Every error body is built here.
 */
import type { components } from './generated/openapi.js';

/** A stable, machine-readable error code, as enumerated by the contract. */
export type ErrorCode = components['schemas']['ErrorCode'];
/** The body every error response carries. */
export type ErrorBody = components['schemas']['Error'];
type ErrorType = ErrorBody['error']['type'];

/** The HTTP status and OpenAI-style `type` of an error code. */
export interface ErrorClass {
  status: number;
  type: ErrorType;
}

const invalid: ErrorClass = { status: 400, type: 'invalid_request_error' };
const unauthenticated: ErrorClass = { status: 401, type: 'authentication_error' };
const forbidden: ErrorClass = { status: 403, type: 'permission_error' };
const notFound: ErrorClass = { status: 404, type: 'not_found_error' };
const conflict: ErrorClass = { status: 409, type: 'conflict_error' };
const rateLimited: ErrorClass = { status: 429, type: 'rate_limit_error' };

/** Status and type of every code. Adding a code to the contract without adding it here fails to compile. */
export const errorRegistry: Record<ErrorCode, ErrorClass> = {
  invalid_request: invalid,
  malformed_authorization_header: invalid,
  credentials_in_query: invalid,
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  request_headers_too_large: { status: 431, type: 'invalid_request_error' },
  request_timeout: { status: 408, type: 'invalid_request_error' },
  password_too_short: invalid,
  password_too_long: invalid,
  password_too_common: invalid,
  missing_credentials: unauthenticated,
  invalid_credentials: unauthenticated,
  invalid_token: unauthenticated,
  token_expired: unauthenticated,
  invalid_api_key: unauthenticated,
  api_key_expired: unauthenticated,
  api_key_disabled: unauthenticated,
  account_disabled: unauthenticated,
  invalid_refresh_token: unauthenticated,
  permission_denied: forbidden,
  cannot_grant_unheld_permissions: forbidden,
  target_holds_unheld_permissions: forbidden,
  cannot_modify_self: forbidden,
  current_password_incorrect: forbidden,
  setup_already_completed: forbidden,
  not_found: notFound,
  user_not_found: notFound,
  api_key_not_found: notFound,
  username_taken: conflict,
  last_admin: conflict,
  encryption_key_mismatch: conflict,
  api_key_undecryptable: conflict,
  model_not_found: notFound,
  model_family_not_found: notFound,
  model_access_denied: forbidden,
  model_uid_taken: conflict,
  model_family_exists: conflict,
  model_family_in_use: conflict,
  builtin_model_family: forbidden,
  model_ability_unsupported: invalid,
  system_message_not_first: invalid,
  unsupported_model_engine: invalid,
  unsafe_path: invalid,
  entry_not_found: notFound,
  upstream_error: { status: 502, type: 'server_error' },
  upstream_timeout: { status: 504, type: 'server_error' },
  upstream_unreachable: { status: 502, type: 'server_error' },
  oidc_not_configured: notFound,
  oidc_state_invalid: invalid,
  oidc_login_failed: unauthenticated,
  oidc_username_conflict: conflict,
  oidc_provider_unreachable: { status: 502, type: 'server_error' },
  oidc_code_invalid: invalid,
  oidc_device_flow_unsupported: notFound,
  oidc_authorization_pending: invalid,
  oidc_slow_down: invalid,
  ip_banned: rateLimited,
  key_banned: rateLimited,
  login_throttled: rateLimited,
  password_change_required: forbidden,
  upstream_not_allowed: invalid,
  rate_limit_exceeded: rateLimited,
  budget_exceeded: rateLimited,
  internal_error: { status: 500, type: 'server_error' },
  service_unavailable: { status: 503, type: 'server_error' },
};

/**
 * An error meant for the caller: its message is safe to show and reaches the body unchanged.
 *
 * @example
 * throw new ApiError('user_not_found', 'User not found');
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | undefined;
  /** Headers the response must carry (e.g. `Retry-After` on 429). */
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options?: { param?: string; cause?: unknown; headers?: Record<string, string> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = errorRegistry[code].status;
    this.param = options?.param;
    this.headers = options?.headers;
  }
}

/** Builds the error body for `code` with a human `message`. */
export function errorBody(code: ErrorCode, message: string, param?: string): ErrorBody {
  const error: ErrorBody['error'] = { message, type: errorRegistry[code].type, code };
  if (param !== undefined) error.param = param;
  return { detail: message, error };
}
