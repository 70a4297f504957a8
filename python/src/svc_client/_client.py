"""The svc client: one object with a resource per part of the API, authenticated by an API key or
by :meth:`Client.login` (with automatic refresh), with timeouts, safe retries and typed errors."""

from __future__ import annotations

import os
from typing import Mapping, Optional

from ._requester import ApiKeySource, Requester
from ._transport import Transport
from .errors import SvcError
from .resources import (
    AuditResource,
    AuthResource,
    ChatResource,
    CompletionsResource,
    EmbeddingsResource,
    HealthResource,
    KeysResource,
    ModelsResource,
    RegistrationsResource,
    SecurityResource,
    SetupResource,
    UsageResource,
    UsersResource,
)
from .types import TokenPair

DEFAULT_TIMEOUT_SECONDS = 60.0
DEFAULT_MAX_RETRIES = 2


class Client:
    """A client of one svc server; safe to share between threads.

    Example::

        client = Client("http://127.0.0.1:9997", api_key=os.environ["SVC_API_KEY"])
        me = client.auth.me()

    Args:
        base_url: the server, e.g. ``http://127.0.0.1:9997``. Defaults to ``SVC_ENDPOINT``.
        api_key: an API key (``sk-svc-…``), or a function returning one (called before every
            request). Sent while no :meth:`login` session exists. Defaults to ``SVC_API_KEY``.
        timeout: seconds one attempt may wait for the server (per socket operation) before it fails
            with :class:`~svc_client.APIConnectionTimeoutError`.
        max_retries: retries of idempotent calls (GET, PUT, DELETE) after 408, 429, 5xx or a
            connection failure.
        headers: headers sent with every call.
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[ApiKeySource] = None,
        *,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        max_retries: int = DEFAULT_MAX_RETRIES,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        base_url = base_url if base_url is not None else (os.environ.get("SVC_ENDPOINT") or None)
        if base_url is None:
            raise SvcError("svc Client needs a base_url (or SVC_ENDPOINT in the environment)")
        if api_key is None:
            api_key = os.environ.get("SVC_API_KEY") or None
        if timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, not {max_retries!r}")
        #: The server's base URL, without a trailing slash.
        self.base_url: str = base_url.rstrip("/")
        self._requester = Requester(Transport(self.base_url, timeout, max_retries, headers), api_key)
        self.health = HealthResource(self._requester)
        self.setup = SetupResource(self._requester)
        self.auth = AuthResource(self._requester)
        self.users = UsersResource(self._requester)
        self.keys = KeysResource(self._requester)
        self.models = ModelsResource(self._requester)
        self.registrations = RegistrationsResource(self._requester)
        self.chat = ChatResource(self._requester)
        self.completions = CompletionsResource(self._requester)
        self.embeddings = EmbeddingsResource(self._requester)
        self.usage = UsageResource(self._requester)
        self.security = SecurityResource(self._requester)
        self.audit = AuditResource(self._requester)

    def login(self, username: str, password: str) -> TokenPair:
        """``POST /v1/auth/login``: logs in; every later call carries the access token, refreshed automatically.

        Raises:
            AuthenticationError: ``invalid_credentials`` (or ``account_disabled``).
        """
        return self._requester.session.login(username, password)

    def logout(self) -> None:
        """``POST /v1/auth/logout``: revokes the session's refresh token on the server and forgets the session."""
        self._requester.session.logout()

    @property
    def logged_in(self) -> bool:
        """True while a :meth:`login` session exists."""
        return self._requester.session.stored is not None

    @property
    def openai_base_url(self) -> str:
        """The base URL for OpenAI-compatible SDKs (``{base_url}/v1``); pass an svc API key as their key."""
        return openai_base_url(self.base_url)

    def __repr__(self) -> str:
        return f"Client({self.base_url!r})"


def openai_base_url(base_url: str) -> str:
    """The base URL an OpenAI-compatible SDK needs for an svc server: ``{base_url}/v1``."""
    return base_url.rstrip("/") + "/v1"
