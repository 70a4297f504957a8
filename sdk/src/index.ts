/**
 * The svc SDK: `new Client({ baseUrl, apiKey })`, or `client.login(username, password)`.
 */
export { Client, openaiBaseUrl, type ClientOptions } from './client.js';
export type { ApiKeySource } from './auth-middleware.js';
export type { RequestOptions } from './request-options.js';
export { MemoryTokenStore, type TokenStore, type StoredSession } from './token-store.js';
export {
  SvcError,
  APIError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  type ErrorCode,
  type ErrorBody,
} from './errors.js';
export type * from './types.js';
export { Stream } from './stream.js';
export type { HealthResource } from './resources/health.js';
export type { SetupResource } from './resources/setup.js';
export type { AuthResource } from './resources/auth.js';
export type { UsersResource } from './resources/users.js';
export type { KeysResource } from './resources/keys.js';
export type { ModelsResource, ModelRegistrationsResource } from './resources/models.js';
export type { InferenceResource } from './resources/inference.js';
export type { CacheResource, VirtualenvsResource, ClusterResource, MonitoringResource } from './resources/operations.js';
export type { SecurityResource } from './resources/security.js';
export type { AuditResource } from './resources/audit.js';
export type { UsageResource } from './resources/usage.js';
export { parseDuration, readRateLimits, type RateLimits, type RateLimitWindow } from './rate-limits.js';
