"""The shapes the server answers, as :class:`typing.TypedDict` (they are plain ``dict`` objects).

Named as in the contract (``openapi/openapi.yaml``). Model shapes are OpenAI-compatible and carry
more fields than listed; the listed ones are those every answer has.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

__all__ = [
    "Permission",
    "ModelPermission",
    "ServiceStatus",
    "ServiceReadiness",
    "ClusterAuth",
    "SetupStatus",
    "TokenPair",
    "User",
    "ApiKeyRef",
    "Me",
    "ApiKey",
    "ApiKeyCreated",
    "UpstreamInfo",
    "Model",
    "ModelRegistration",
    "ModelList",
    "ChatMessage",
    "ChatCompletion",
    "ChatCompletionChunk",
    "Completion",
    "CompletionChunk",
    "Embedding",
    "EmbeddingList",
    "ClusterVersion",
    "UiConfig",
    "AuditRecord",
    "AuditSearchResult",
    "AuditFilterOptions",
    "AuditVerification",
    "RateLimitRule",
    "LoginLockoutRule",
    "SecuritySettings",
    "BannedIp",
    "BannedKey",
    "LockedAccount",
]

#: A permission name of the spec's table (``admin`` holds all the others), or a legacy name on input.
Permission = str


class ModelPermission(TypedDict):
    """One model restriction of an API key: ``all`` (value None), ``model_id`` or ``model_type``."""

    permission_type: Literal["all", "model_id", "model_type"]
    permission_value: Optional[str]


class ServiceStatus(TypedDict):
    """``GET /status`` (liveness)."""

    status: str
    version: str


class ServiceReadiness(TypedDict):
    """``GET /ready`` (readiness)."""

    status: str


class ClusterAuth(TypedDict):
    """``GET /v1/cluster/auth``: whether every other call needs credentials."""

    auth: bool


class SetupStatus(TypedDict):
    """``GET /v1/admin/setup/status``."""

    needs_setup: bool
    initialized: bool
    password_min_length: int


class _TokenPairFields(TypedDict):
    access_token: str
    refresh_token: str
    token_type: str
    expires_in: int
    refresh_expires_in: int


class TokenPair(_TokenPairFields, total=False):
    """A login's tokens; ``must_change_password`` is present (and True) when the account must change it."""

    must_change_password: bool


class User(TypedDict):
    """A user account."""

    id: str
    username: str
    source: Literal["setup", "local", "migrated"]
    enabled: bool
    must_change_password: bool
    permissions: List[Permission]
    created_at: str
    updated_at: str


class ApiKeyRef(TypedDict):
    """The key a request used."""

    id: str
    name: str
    key_prefix: str


class Me(TypedDict):
    """``GET /v1/auth/me``: the caller, and the permissions in force for this call."""

    id: str
    username: str
    enabled: bool
    must_change_password: bool
    permissions: List[Permission]
    auth_type: Literal["jwt", "api_key", "none"]
    api_key: Optional[ApiKeyRef]
    created_at: Optional[str]


class ApiKey(TypedDict):
    """An API key as listed (never its plaintext)."""

    id: str
    user_id: str
    owner_username: str
    key_prefix: str
    name: str
    description: Optional[str]
    enabled: bool
    expires_at: Optional[str]
    last_used_at: Optional[str]
    model_permissions: List[ModelPermission]
    permissions: Optional[List[Permission]]
    rate_limit_max_failures: Optional[int]
    rate_limit_window_seconds: Optional[int]
    rate_limit_ban_seconds: Optional[int]
    revealable: bool
    created_at: str
    updated_at: str


class ApiKeyCreated(ApiKey):
    """A new key: ``key`` is its plaintext, shown this once (``prefix`` equals ``key_prefix``)."""

    key: str
    prefix: str


class UpstreamInfo(TypedDict):
    """Where an upstream model is served (never its key)."""

    base_url: str
    model: str
    has_api_key: bool


class Model(TypedDict):
    """A running model: the OpenAI model shape plus svc's fields."""

    id: str
    object: str
    created: int
    owned_by: str
    model_uid: str
    model_name: str
    model_type: str
    model_engine: Literal["builtin", "upstream"]
    model_ability: List[str]
    requires_system_message_first: bool
    model_format: Optional[str]
    model_size_in_billions: Optional[Union[int, str]]
    quantization: Optional[str]
    dimensions: Optional[int]
    upstream: Optional[UpstreamInfo]


class ModelRegistration(TypedDict):
    """A model family (built-in or registered)."""

    model_name: str
    model_type: str
    model_ability: List[str]
    requires_system_message_first: bool
    dimensions: Optional[int]
    is_builtin: bool
    description: Optional[str]
    created_at: Optional[str]


class ModelList(TypedDict):
    """``GET /v1/models``."""

    object: str
    data: List[Model]


class ChatMessage(TypedDict):
    """One message of a chat."""

    role: str
    content: str


class ChatCompletion(TypedDict):
    """A chat completion (OpenAI-compatible)."""

    id: str
    object: str
    created: int
    model: str
    choices: List[Dict[str, Any]]


class ChatCompletionChunk(TypedDict):
    """One chunk of a streamed chat completion (OpenAI-compatible)."""

    id: str
    object: str
    created: int
    model: str
    choices: List[Dict[str, Any]]


class Completion(TypedDict):
    """A text completion (OpenAI-compatible); ``choices[i]["text"]`` is the text."""

    id: str
    object: str
    created: int
    model: str
    choices: List[Dict[str, Any]]


class CompletionChunk(TypedDict):
    """One chunk of a streamed completion (OpenAI-compatible)."""

    id: str
    object: str
    created: int
    model: str
    choices: List[Dict[str, Any]]


class Embedding(TypedDict):
    """One embedding of an :class:`EmbeddingList`."""

    object: str
    index: int
    embedding: List[float]


class EmbeddingList(TypedDict):
    """``POST /v1/embeddings`` (OpenAI-compatible)."""

    object: str
    data: List[Embedding]
    model: str
    usage: Dict[str, int]


class ClusterVersion(TypedDict):
    """``GET /v1/cluster/version`` (the reference server's shape; ``full-revisionid`` is always None)."""

    version: str


class UiConfig(TypedDict):
    """``GET /v1/cluster/ui_config``: what the reference web UI reads before login."""

    es_enabled: bool
    auth_advanced: bool
    oidc_enabled: bool


#: One audit record: ``@timestamp``, ``timestamp``, ``event_type``, ``category``, ``action``,
#: ``status``, ``user``, ``client_ip``, … (see ``AuditRecord`` in the contract).
AuditRecord = Dict[str, Any]


class AuditSearchResult(TypedDict):
    """``GET /v1/audit/search``: a page of records, newest first, and how many match."""

    hits: List[AuditRecord]
    total: int


#: ``GET /v1/audit/filter-options``: the distinct values of each filterable field.
AuditFilterOptions = Dict[str, List[str]]
#: ``GET /v1/audit/verify``: ``ok``, how many records were checked, and the first broken one.
AuditVerification = Dict[str, Any]


class RateLimitRule(TypedDict):
    """``max_failures`` failures within ``window_seconds`` ban for ``ban_seconds``."""

    max_failures: int
    window_seconds: int
    ban_seconds: int


class LoginLockoutRule(TypedDict):
    """The per-account login lockout."""

    failures_before_lockout: int
    wait_increment_seconds: int
    max_wait_seconds: int
    failure_reset_seconds: int


class SecuritySettings(TypedDict):
    """``GET /v1/admin/security/rate-limit``."""

    ip: RateLimitRule
    key: RateLimitRule
    login: LoginLockoutRule


class BannedIp(TypedDict):
    """An active ban of a client IP (or of a key from one IP)."""

    ip: str
    banned_until: str
    remaining_seconds: int


class BannedKey(TypedDict):
    """An active ban of a credential from one IP (``key_id`` is its ``sha256:…`` id)."""

    ip: str
    key_id: str
    banned_until: str
    remaining_seconds: int


class LockedAccount(TypedDict):
    """An account locked after failed logins."""

    user_id: str
    username: Optional[str]
    lockouts: int
    locked_until: str
    remaining_seconds: int


class TokenBudget(TypedDict):
    """At most ``tokens`` prompt + completion tokens per UTC ``day`` or calendar ``month``."""

    tokens: int
    period: Literal["day", "month"]


class _ModelUsageLimitName(TypedDict):
    model: str


class ModelUsageLimit(_ModelUsageLimitName, total=False):
    """Per-minute limits of calls to one model (None: no limit)."""

    requests_per_minute: Optional[int]
    tokens_per_minute: Optional[int]


class UsageLimits(TypedDict, total=False):
    """Usage limits of a key, a user or the default for new keys; an absent or None field is no limit."""

    requests_per_minute: Optional[int]
    tokens_per_minute: Optional[int]
    max_concurrent_requests: Optional[int]
    token_budget: Optional[TokenBudget]
    models: List[ModelUsageLimit]


class UsageReportRow(TypedDict):
    """One row of ``GET /v1/usage``: one bucket of one key, user or model (``group``; None: no key or user)."""

    period_start: str
    group: Optional[str]
    calls: int
    errors: int
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    estimated_calls: int
    mean_latency_ms: int


class UsageReport(TypedDict):
    """``GET /v1/usage``: whose calls (``own`` or ``all``), the range, and the rows."""

    start: str
    end: str
    group_by: Literal["key", "user", "model"]
    interval: Literal["hour", "day"]
    scope: Literal["own", "all"]
    data: List[UsageReportRow]
