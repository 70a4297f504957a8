/**
 * The contract's shapes under the names an app uses. All generated from `openapi/openapi.yaml`.
 */
import type { components, operations, paths } from './generated/openapi.js';

/** Every schema of the contract, by name (`Schemas['User']`, …). */
export type Schemas = components['schemas'];

/**
 * `T` without its index signature: the contract's named fields only. Request bodies the server passes
 * on to an upstream model server are open in the contract; the SDK types them closed, so a misspelt
 * field does not compile. A field the contract does not name still reaches the server through a type
 * assertion: `{ ...request, top_k: 40 } as ChatCompletionRequest`.
 */
/** The contract's schema `Name` (a generic alias, so an interface can extend it and documentation lists its fields). */
export type Schema<Name extends keyof Schemas> = Schemas[Name];

export type KnownFields<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

export type { paths, components, operations };
/** A user account, as the server answers it (never its password). */
export interface User extends Schema<'User'> {}
/** The body of `users.create()`. */
export interface UserCreate extends Schema<'UserCreate'> {}
/** The body of `users.update()`: any subset of the fields. */
export interface UserUpdate extends Schema<'UserUpdate'> {}
/** The body of `users.setPassword()`. */
export interface UserPasswordSet extends Schema<'UserPasswordSet'> {}
/** The caller (`auth.me()`): account, how it authenticated, and the permissions in force for this call. */
export interface Me extends Schema<'Me'> {}
/** The tokens of a login or refresh. */
export interface TokenPair extends Schema<'TokenPair'> {}
/** A browser login: the access token; the refresh token is in an HttpOnly cookie. */
export interface BrowserSession extends Schema<'BrowserSession'> {}
/** Whether the first administrator still has to be created, and the password policy. */
export interface SetupStatus extends Schema<'SetupStatus'> {}
/** The body of `setup.createAdmin()`. */
export interface SetupRequest extends Schema<'SetupRequest'> {}
/** The body of `auth.changePassword()`. */
export interface OwnPasswordChange extends Schema<'OwnPasswordChange'> {}
/** Whether the server offers single sign-on (`GET /v1/auth/oidc/config`). */
export interface OidcLoginOptions extends Schema<'OidcLoginOptions'> {}
/** A CLI's one-time single sign-on code and its PKCE verifier (`POST /v1/auth/oidc/token`). */
export interface OidcCodeExchange extends Schema<'OidcCodeExchange'> {}
/** A started device sign-in (`POST /v1/auth/oidc/device`). */
export interface OidcDeviceAuthorization extends Schema<'OidcDeviceAuthorization'> {}
/** The single sign-on configuration, secrets hidden (`GET /v1/admin/oidc`). */
export interface OidcSettings extends Schema<'OidcSettings'> {}
export type Permission = Schemas['Permission'];
export type PermissionInput = Schemas['PermissionInput'];
/** An API key as listed (never the key itself: see `ApiKeyCreated` and `keys.reveal()`). */
export interface ApiKey extends Schema<'ApiKey'> {}
/** The body of `keys.create()`. */
export interface ApiKeyCreate extends Schema<'ApiKeyCreate'> {}
/** A new API key, with its plaintext `key`, shown this once. */
export interface ApiKeyCreated extends Schema<'ApiKeyCreated'> {}
/** The body of `keys.update()`: any subset of the fields. */
export interface ApiKeyUpdate extends Schema<'ApiKeyUpdate'> {}
export type ModelPermission = Schemas['ModelPermission'];
/** A revealed API key. */
export interface RevealedKey extends Schema<'RevealedKey'> {}
/** `health.status()` (liveness): the server process is up. */
export interface ServiceStatus extends Schema<'ServiceStatus'> {}
/** `ServiceStatus.change_listener` (PostgreSQL only): the server process's cache-invalidation listener. */
export interface ChangeListenerStatus extends Schema<'ChangeListenerStatus'> {}
/** `health.ready()` (readiness): the server can take traffic. */
export interface ServiceReadiness extends Schema<'ServiceReadiness'> {}
/** `health.authEnabled()`: whether calls need credentials. */
export interface ClusterAuth extends Schema<'ClusterAuth'> {}
/** A running model, in the OpenAI model shape plus svc's fields. */
export interface Model extends Schema<'Model'> {}
/** The running models the caller may use. */
export interface ModelList extends Schema<'ModelList'> {}
/** Launches a model (`POST /v1/models`). Only the contract's fields type-check; the server accepts more (see {@link KnownFields}). */
export type ModelLaunch = KnownFields<Schemas['ModelLaunch']>;
export type ModelType = Schemas['ModelType'];
export type ModelAbility = Schemas['ModelAbility'];
export type ModelEngine = Schemas['ModelEngine'];
/** A custom model family. Only the contract's fields type-check. */
export type ModelFamilyDefinition = KnownFields<Schemas['ModelFamilyDefinition']>;
/** A built-in or registered model family. */
export interface ModelRegistration extends Schema<'ModelRegistration'> {}
/** A family's full definition (`GET /v1/model_registrations/{model_type}/{model_name}`). */
export interface ModelFamilyDescription extends Schema<'ModelFamilyDescription'> {}
/** A running model's instance (`GET /v1/models/instances`). */
export interface ModelInstance extends Schema<'ModelInstance'> {}
/** What the reference web UI reads before login (`GET /v1/cluster/ui_config`). */
export interface UiConfig extends Schema<'UiConfig'> {}
/** The server's version in the reference server's shape (`GET /v1/cluster/version`). */
export interface ClusterVersion extends Schema<'ClusterVersion'> {}
/** One part of a message's content: `{ type: 'text', text }`, `{ type: 'image_url', image_url: { url } }`, … */
export type ChatContentPart = KnownFields<Schemas['ChatContentPart']>;
/** One message of a chat; `content` is text, an array of {@link ChatContentPart}s, or null. */
export type ChatMessage = Omit<KnownFields<Schemas['ChatMessage']>, 'content'> & {
  content?: string | ChatContentPart[] | null;
};
/**
 * A chat request: OpenAI's fields (`temperature`, `tools`, `stream_options`, …) are typed, and a
 * field the contract does not name (a typo such as `temprature`) does not compile.
 */
export type ChatCompletionRequest = Omit<KnownFields<Schemas['ChatCompletionRequest']>, 'messages'> & {
  messages: ChatMessage[];
};
/** The answer of a chat completion. */
export interface ChatCompletion extends Schema<'ChatCompletion'> {}
/** A text completion request; only the contract's fields type-check. */
export type CompletionRequest = KnownFields<Schemas['CompletionRequest']>;
/** The answer of a text completion. */
export interface Completion extends Schema<'Completion'> {}
/** An embeddings request; only the contract's fields type-check. */
export type EmbeddingRequest = KnownFields<Schemas['EmbeddingRequest']>;
/** One embedding: `number[]` for `encoding_format` `float` (the default), a base64 string for `base64`. */
export type Embedding<Vector extends number[] | string = number[]> = Omit<KnownFields<Schemas['EmbeddingList']['data'][number]>, 'embedding'> & {
  embedding: Vector;
};
/** The answer of `POST /v1/embeddings`, typed by the `encoding_format` asked for (see `client.inference.embeddings`). */
export type EmbeddingList<Vector extends number[] | string = number[]> = Omit<KnownFields<Schemas['EmbeddingList']>, 'data'> & {
  data: Embedding<Vector>[];
};
/** The entries of a managed directory (model cache, virtual environments). */
export interface DirectoryListing extends Schema<'DirectoryListing'> {}
/** One entry of a managed directory. */
export interface DirectoryEntry extends Schema<'DirectoryEntry'> {}
/** What a delete in a managed directory removed. */
export interface DeletedEntry extends Schema<'DeletedEntry'> {}
/** The server's recent log lines. */
export interface LogLines extends Schema<'LogLines'> {}
export type LogLine = Schemas['LogLines']['lines'][number];
/** Token counts of an inference answer. */
export interface Usage extends Schema<'Usage'> {}

/** One chunk of a streamed chat completion (OpenAI's `chat.completion.chunk`). */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: { role?: string; content?: string | null; [field: string]: unknown }; finish_reason: string | null }[];
  /** With `stream_options: { include_usage: true }`: null on every chunk but the last, whose `choices` is empty. */
  usage?: Usage | null;
  [field: string]: unknown;
}

/** One chunk of a streamed text completion. */
export interface CompletionChunk {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  choices: { index: number; text: string; finish_reason: string | null }[];
  /** With `stream_options: { include_usage: true }`: null on every chunk but the last, whose `choices` is empty. */
  usage?: Usage | null;
  [field: string]: unknown;
}
/** The brute-force protection settings in force. */
export interface SecuritySettings extends Schema<'SecuritySettings'> {}
/** Any subset of the brute-force settings. */
export interface SecuritySettingsUpdate extends Schema<'SecuritySettingsUpdate'> {}
/** An active ban of a client IP. */
export interface BannedIp extends Schema<'BannedIp'> {}
/** An active ban of an (IP, credential) pair. */
export interface BannedKey extends Schema<'BannedKey'> {}
/** An account locked after failed logins. */
export interface LockedAccount extends Schema<'LockedAccount'> {}
/** One record of the audit trail. */
export interface AuditRecord extends Schema<'AuditRecord'> {}
/** One page of audit records and the total. */
export interface AuditSearchResult extends Schema<'AuditSearchResult'> {}
/** Distinct values of each filterable audit field in a time range. */
export interface AuditFilterOptions extends Schema<'AuditFilterOptions'> {}
/** The result of checking the audit trail's hash chain. */
export interface AuditVerification extends Schema<'AuditVerification'> {}
/** Usage limits of a key, a user or the default for new keys; absent or null fields mean no limit. */
export interface UsageLimits extends Schema<'UsageLimits'> {}
/** A token budget per UTC day or month. */
export interface TokenBudget extends Schema<'TokenBudget'> {}
/** Per-minute limits of one model. */
export interface ModelUsageLimit extends Schema<'ModelUsageLimit'> {}
/** The answer of `GET /v1/usage`. */
export interface UsageReport extends Schema<'UsageReport'> {}
/** One row of a usage report. */
export interface UsageReportRow extends Schema<'UsageReportRow'> {}
/** The query of `GET /v1/usage` (the format is chosen by the method). */
export type UsageQuery = Omit<NonNullable<operations['getUsage']['parameters']['query']>, 'format'>;
/** The filters of an audit search or export (`time_from` defaults to `now-1h`). */
export type AuditFilters = Omit<NonNullable<operations['exportAudit']['parameters']['query']>, 'format'>;
/** The query of `GET /v1/audit/search`: the filters plus paging. */
export type AuditSearchQuery = NonNullable<operations['searchAudit']['parameters']['query']>;
