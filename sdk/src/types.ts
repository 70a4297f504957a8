/**
 * The contract's shapes under the names an app uses. All generated from `openapi/openapi.yaml`.
 */
import type { components, operations, paths } from './generated/openapi.js';

/** Every schema of the contract, by name (`Schemas['User']`, …). */
export type Schemas = components['schemas'];

export type { paths, components, operations };
export type User = Schemas['User'];
export type UserCreate = Schemas['UserCreate'];
export type UserUpdate = Schemas['UserUpdate'];
export type UserPasswordSet = Schemas['UserPasswordSet'];
export type Me = Schemas['Me'];
export type TokenPair = Schemas['TokenPair'];
export type SetupStatus = Schemas['SetupStatus'];
export type SetupRequest = Schemas['SetupRequest'];
export type OwnPasswordChange = Schemas['OwnPasswordChange'];
export type Permission = Schemas['Permission'];
export type PermissionInput = Schemas['PermissionInput'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyCreate = Schemas['ApiKeyCreate'];
export type ApiKeyCreated = Schemas['ApiKeyCreated'];
export type ApiKeyUpdate = Schemas['ApiKeyUpdate'];
export type ModelPermission = Schemas['ModelPermission'];
export type RevealedKey = Schemas['RevealedKey'];
export type ServiceStatus = Schemas['ServiceStatus'];
export type ClusterAuth = Schemas['ClusterAuth'];
export type SecuritySettings = Schemas['SecuritySettings'];
export type SecuritySettingsUpdate = Schemas['SecuritySettingsUpdate'];
export type BannedIp = Schemas['BannedIp'];
export type BannedKey = Schemas['BannedKey'];
export type LockedAccount = Schemas['LockedAccount'];
export type AuditRecord = Schemas['AuditRecord'];
export type AuditSearchResult = Schemas['AuditSearchResult'];
export type AuditFilterOptions = Schemas['AuditFilterOptions'];
export type AuditVerification = Schemas['AuditVerification'];
/** The filters of an audit search or export (`time_from` defaults to `now-1h`). */
export type AuditFilters = NonNullable<operations['exportAudit']['parameters']['query']> extends infer Query
  ? Omit<Query, 'format'>
  : never;
/** The query of `GET /v1/audit/search`: the filters plus paging. */
export type AuditSearchQuery = NonNullable<operations['searchAudit']['parameters']['query']>;
