"""Python client of svc access control (standard library only, Python 3.9+).

Example::

    from svc_client import Client

    client = Client("http://127.0.0.1:9997", api_key="sk-svc-…")
    print(client.auth.me()["username"])
"""

from __future__ import annotations

from ._client import Client, openai_base_url
from ._not_given import NOT_GIVEN, NotGiven
from .errors import (
    APIConnectionError,
    APIConnectionTimeoutError,
    APIError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    SvcError,
    UnprocessableEntityError,
)

__version__ = "0.1.0"

__all__ = [
    "Client",
    "openai_base_url",
    "NOT_GIVEN",
    "NotGiven",
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
]
