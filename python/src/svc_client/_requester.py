"""Authenticated calls: picks the credentials for each request, refreshes and replays once on a
``token_expired`` answer, and turns error answers into :class:`APIError` subclasses.

A session's access token is sent while one exists, otherwise the API key (as in the TypeScript SDK's
``sdk/src/auth-middleware.ts``). Private to the package.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Union

from ._session import Session
from ._transport import Response, Transport
from .errors import error_from_response

#: An API key, or a function returning one (called before every request, e.g. to read a vault).
ApiKeySource = Union[str, Callable[[], str]]


class Requester:
    """Sends the client's requests."""

    def __init__(self, transport: Transport, api_key: Optional[ApiKeySource]) -> None:
        self.transport = transport
        self._api_key = api_key
        self.session = Session(self.post_public)

    def post_public(self, path: str, body: Mapping[str, Any]) -> Any:
        """A ``POST`` to a public route (no credentials): its JSON answer, or the error raised."""
        return self.json("POST", path, body=body, public=True)

    def json(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, str]] = None,
        body: Any = None,
        public: bool = False,
    ) -> Any:
        """Sends the request; returns the answer's JSON, or raises the :class:`APIError` subclass for its status."""
        response = self.send(method, path, query=query, body=body, public=public)
        return response.json()

    def send(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, str]] = None,
        body: Any = None,
        public: bool = False,
        stream: bool = False,
    ) -> Response:
        """Sends the request with credentials (unless ``public``); returns a success answer or raises."""
        session_token = None if public else self.session.access_token()
        token = session_token if session_token is not None or public else self._current_api_key()
        response = self.transport.send(method, path, query=query, body=body, token=token, stream=stream)
        if session_token is not None and response.status == 401 and response.error_code() == "token_expired":
            self.session.refresh(session_token)
            fresh = self.session.access_token()
            if fresh is not None:
                response = self.transport.send(method, path, query=query, body=body, token=fresh, stream=stream)
        if not 200 <= response.status < 300:
            raise error_from_response(response.status, response.body, response.headers)
        return response

    def _current_api_key(self) -> Optional[str]:
        if self._api_key is None or isinstance(self._api_key, str):
            return self._api_key
        return self._api_key()
