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
/** A browser login: the access token; the refresh token is in an HttpOnly cookie. */
export type BrowserSession = Schemas['BrowserSession'];
export type SetupStatus = Schemas['SetupStatus'];
export type SetupRequest = Schemas['SetupRequest'];
export type OwnPasswordChange = Schemas['OwnPasswordChange'];
/** Whether the server offers single sign-on (`GET /v1/auth/oidc/config`). */
export type OidcLoginOptions = Schemas['OidcLoginOptions'];
/** A CLI's one-time single sign-on code and its PKCE verifier (`POST /v1/auth/oidc/token`). */
export type OidcCodeExchange = Schemas['OidcCodeExchange'];
/** A started device sign-in (`POST /v1/auth/oidc/device`). */
export type OidcDeviceAuthorization = Schemas['OidcDeviceAuthorization'];
/** The single sign-on configuration, secrets hidden (`GET /v1/admin/oidc`). */
export type OidcSettings = Schemas['OidcSettings'];
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
export type Model = Schemas['Model'];
export type ModelList = Schemas['ModelList'];
export type ModelLaunch = Schemas['ModelLaunch'];
export type ModelType = Schemas['ModelType'];
export type ModelAbility = Schemas['ModelAbility'];
export type ModelEngine = Schemas['ModelEngine'];
export type ModelFamilyDefinition = Schemas['ModelFamilyDefinition'];
export type ModelRegistration = Schemas['ModelRegistration'];
export type ModelFamilyDescription = Schemas['ModelFamilyDescription'];
export type ModelInstance = Schemas['ModelInstance'];
export type UiConfig = Schemas['UiConfig'];
export type ClusterVersion = Schemas['ClusterVersion'];
export type ChatMessage = Schemas['ChatMessage'];
export type ChatCompletionRequest = Schemas['ChatCompletionRequest'];
export type ChatCompletion = Schemas['ChatCompletion'];
export type CompletionRequest = Schemas['CompletionRequest'];
export type Completion = Schemas['Completion'];
export type EmbeddingRequest = Schemas['EmbeddingRequest'];
export type EmbeddingList = Schemas['EmbeddingList'];
export type DirectoryListing = Schemas['DirectoryListing'];
export type DirectoryEntry = Schemas['DirectoryEntry'];
export type DeletedEntry = Schemas['DeletedEntry'];
export type LogLines = Schemas['LogLines'];
export type LogLine = Schemas['LogLines']['lines'][number];

/** One chunk of a streamed chat completion (OpenAI's `chat.completion.chunk`). */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: { role?: string; content?: string | null; [field: string]: unknown }; finish_reason: string | null }[];
  [field: string]: unknown;
}

/** One chunk of a streamed text completion. */
export interface CompletionChunk {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  choices: { index: number; text: string; finish_reason: string | null }[];
  [field: string]: unknown;
}
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
export type AuditFilters = Omit<NonNullable<operations['exportAudit']['parameters']['query']>, 'format'>;
/** The query of `GET /v1/audit/search`: the filters plus paging. */
export type AuditSearchQuery = NonNullable<operations['searchAudit']['parameters']['query']>;
