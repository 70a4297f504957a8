"""The client's errors.

One :class:`SvcError` root; :class:`APIError` for every answer of the server that is not a success,
with a subclass per status chosen by :func:`error_from_response`; :class:`APIConnectionError` (and
its :class:`APIConnectionTimeoutError`) when no answer came at all. The message is the server's.
Mirrors the TypeScript SDK (``sdk/src/errors.ts``): the same class names and the same ``code`` strings.
"""

from __future__ import annotations

import email.utils
import http
import json
import re
import time
from typing import Any, Dict, Mapping, Optional, Tuple, Type, cast

__all__ = [
    "SvcError",
    "APIError",
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "UnprocessableEntityError",
    "RateLimitError",
    "InternalServerError",
    "APIConnectionError",
    "APIConnectionTimeoutError",
    "error_from_response",
    "error_fields",
    "retry_after_seconds",
    "read_rate_limits",
    "parse_duration",
]


class SvcError(Exception):
    """The root of every error this client raises.

    ``status``, ``code`` and ``request_id`` are None when the server did not answer (a connection
    error) or did not say; ``message`` is always set.
    """

    code: Optional[str] = None
    request_id: Optional[str] = None

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    @property
    def status(self) -> Optional[int]:
        """The HTTP status of the server's answer; None when there was no answer."""
        return None

    def __str__(self) -> str:
        return self.message


# What to do next, by status (and code), appended to the printed form of an error.
_HINTS_BY_STATUS = {401: "log in again or check the API key"}
_HINTS_BY_CODE = {
    "permission_denied": "ask an administrator for the permission, or use a key that holds it",
    "token_expired": "the client refreshes on its own; log in again if this persists",
    "invalid_refresh_token": "the session ended: log in again",
}


class APIError(SvcError):
    """The server answered with an error.

    Attributes:
        status: the HTTP status.
        code: the server's stable error code (e.g. ``invalid_credentials``), when the body carried one.
        message: the server's human-readable message (``detail``).
        param: the request field at fault, when the server named one.
        request_id: the server's ``X-Request-Id``, for bug reports and logs.
        headers: the answer's headers.
        body: the parsed error body (or the raw text when it was not JSON).
    """

    def __init__(self, status: int, body: Any, headers: Mapping[str, str], message: Optional[str] = None) -> None:
        detail, code, param = error_fields(body)
        super().__init__(message if message is not None else (detail if detail is not None else f"HTTP {status}"))
        self._status = status
        self.code = code
        self.param = param
        self.headers = {name.lower(): value for name, value in headers.items()}
        self.request_id = self.headers.get("x-request-id")
        self.body = body

    @property
    def status(self) -> int:
        """The HTTP status."""
        return self._status

    def __str__(self) -> str:
        """``401 Unauthorized (invalid_credentials): Incorrect username or password — log in again …``."""
        try:
            phrase = http.HTTPStatus(self.status).phrase
        except ValueError:
            phrase = "Error"
        head = f"{self.status} {phrase}" + (f" ({self.code})" if self.code else "")
        hint = _HINTS_BY_CODE.get(self.code or "") or _HINTS_BY_STATUS.get(self.status)
        return f"{head}: {self.message}" + (f" — {hint}" if hint else "")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, message={self.message!r}, request_id={self.request_id!r})"


class BadRequestError(APIError):
    """400: the request does not match the contract, or a password breaks the policy."""


class AuthenticationError(APIError):
    """401: no credentials, or credentials that failed (log in again, or check the API key)."""


class PermissionDeniedError(APIError):
    """403: the caller lacks a permission, or a rule forbids the change."""


class NotFoundError(APIError):
    """404: no such resource, or not one the caller may see."""


class ConflictError(APIError):
    """409: the request conflicts with the current state (e.g. ``username_taken``)."""


class UnprocessableEntityError(APIError):
    """422: the request was understood but cannot be processed."""


class RateLimitError(APIError):
    """429: too many requests, or the caller is banned for a while.

    ``retry_after`` is the wait in seconds the server asked for (``Retry-After``), when it sent one;
    ``rate_limits`` the usage limit's state from the ``x-ratelimit-*`` headers (empty for a ban).
    """

    def __init__(self, status: int, body: Any, headers: Mapping[str, str], message: Optional[str] = None) -> None:
        super().__init__(status, body, headers, message)
        self.retry_after: Optional[float] = retry_after_seconds(self.headers)
        self.rate_limits: Dict[str, Dict[str, float]] = read_rate_limits(self.headers)


class InternalServerError(APIError):
    """5xx: the server failed, or its database is unavailable."""


class APIConnectionError(SvcError):
    """No answer: the server could not be reached, or the connection broke."""

    def __init__(self, message: str = "Could not reach the svc server") -> None:
        super().__init__(message)


class APIConnectionTimeoutError(APIConnectionError):
    """No answer within the configured timeout."""

    def __init__(self, timeout: float) -> None:
        super().__init__(f"The svc server did not answer within {timeout:g} s")
        self.timeout = timeout


_CLASSES_BY_STATUS: Mapping[int, Type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def error_from_response(status: int, body: bytes, headers: Mapping[str, str]) -> APIError:
    """The :class:`APIError` subclass for ``status``, built from the raw answer."""
    parsed: Any
    text = body.decode("utf-8", errors="replace")
    try:
        parsed = json.loads(text) if text else None
    except ValueError:
        parsed = text
    error_class = _CLASSES_BY_STATUS.get(status, InternalServerError if status >= 500 else APIError)
    return error_class(status, parsed, headers)


def retry_after_seconds(headers: Mapping[str, str]) -> Optional[float]:
    """The wait the server asked for, in seconds (``retry-after-ms`` or ``Retry-After``), if any."""
    lowered = {name.lower(): value for name, value in headers.items()}
    milliseconds = _non_negative_number(lowered.get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000
    value = lowered.get("retry-after")
    if value is None:
        return None
    seconds = _non_negative_number(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())


_DURATION_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, "us": 0.000001, "µs": 0.000001, "ns": 0.000000001}
_DURATION = re.compile(r"^(?:\d+(?:\.\d+)?(?:h|ms|m|s|us|µs|ns))+$")
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)")


def parse_duration(text: str) -> Optional[float]:
    """Seconds of a Go duration as OpenAI and svc write resets (``6m0s``, ``1.5s``, ``20ms``); None if it is not one."""
    trimmed = text.strip()
    if trimmed == "0":
        return 0.0
    if not _DURATION.match(trimmed):
        return None
    return sum(float(amount) * _DURATION_UNITS[unit] for amount, unit in _DURATION_PART.findall(trimmed))


def read_rate_limits(headers: Mapping[str, str]) -> Dict[str, Dict[str, float]]:
    """The ``x-ratelimit-{limit,remaining,reset}-{requests,tokens}`` headers, per dimension fully reported:
    ``{"requests": {"limit": 60, "remaining": 0, "reset_seconds": 1.5}}``."""
    lowered = {name.lower(): value for name, value in headers.items()}
    limits: Dict[str, Dict[str, float]] = {}
    for dimension in ("requests", "tokens"):
        limit = _non_negative_number(lowered.get(f"x-ratelimit-limit-{dimension}"))
        remaining = _non_negative_number(lowered.get(f"x-ratelimit-remaining-{dimension}"))
        reset = parse_duration(lowered.get(f"x-ratelimit-reset-{dimension}", ""))
        if limit is not None and remaining is not None and reset is not None:
            limits[dimension] = {"limit": limit, "remaining": remaining, "reset_seconds": reset}
    return limits


def _non_negative_number(value: Optional[str]) -> Optional[float]:
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if number >= 0 and number != float("inf") else None


def error_fields(body: Any) -> Tuple[Optional[str], Optional[str], Optional[str]]:
    """The ``detail``, ``error.code`` and ``error.param`` of an error body in the server's shape (Nones otherwise)."""
    if not isinstance(body, dict):
        return None, None, None
    fields = cast(Dict[str, Any], body)
    detail, error = fields.get("detail"), fields.get("error")
    if not isinstance(detail, str) or not isinstance(error, dict):
        return None, None, None
    error_object = cast(Dict[str, Any], error)
    code, param = error_object.get("code"), error_object.get("param")
    return detail, code if isinstance(code, str) else None, param if isinstance(param, str) else None
