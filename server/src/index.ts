/**
 * The public surface of the svc server package.
 */
export { buildApp, type AppOptions } from './app.js';
export { systemClock, ManualClock, type Clock } from './runtime/clock.js';
export { BackgroundWrites } from './runtime/background-writes.js';
export { loadConfig, ConfigError, type ServerConfig, type SecretSource, type FrontendConfig, type Environment } from './config.js';
export { errorRegistry, type ErrorCode, type ErrorBody, type ErrorClass } from './errors.js';
export { allPermissions, legacyPermissionMap, type Permission, type PermissionInput } from './auth/permissions.js';
export { operationSpecs, type OperationSpec, type OperationId, type JsonSchema } from './contract/contract.js';
export { ResponseValidator } from './contract/response-validator.js';
export { SERVICE_VERSION } from './routes/health-routes.js';
export type { paths, components, operations } from './generated/openapi.js';
export type { BruteForceEvent, BruteForceListener } from './brute-force/brute-force-service.js';
export type { BruteForceScope } from './storage/port/brute-force.js';
export type { SecuritySettings, SecuritySettingsUpdate } from './brute-force/security-settings.js';
export type { AuditContext, AuditModel } from './audit/request-audit.js';
export { requestAuthorisedChannelName, type RequestAuthorisedMessage } from './observability/diagnostics.js';
