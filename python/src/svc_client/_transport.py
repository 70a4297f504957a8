"""Sends one HTTP request with a per-attempt timeout, and retries it where that is safe.

Retries only idempotent methods, on 408, 429 and 5xx answers and on connection failures, honouring
``retry-after-ms`` and ``Retry-After``, with capped, jittered exponential backoff (as the TypeScript
SDK's ``sdk/src/transport.ts``). Private to the package.
"""

from __future__ import annotations

import http.client
import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import IO, Any, Callable, Dict, Mapping, Optional

from .errors import APIConnectionError, APIConnectionTimeoutError, error_fields, retry_after_seconds

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
# A server that asks for a longer wait than this gets its answer back instead of a retry.
MAX_RETRY_WAIT_SECONDS = 60.0


def is_retryable_status(status: int) -> bool:
    """True when an answer with this status may be retried."""
    return status == 408 or status == 429 or status >= 500


@dataclass
class Response:
    """An answer of the server: its status, headers (lower-case names) and body.

    ``stream`` is the open answer when it was asked for (``body`` is then empty); close it when done.
    """

    status: int
    headers: Dict[str, str]
    body: bytes
    stream: Optional[IO[bytes]] = None

    def json(self) -> Any:
        """The body parsed as JSON (None when empty)."""
        return json.loads(self.body.decode("utf-8")) if self.body else None

    def error_code(self) -> Optional[str]:
        """The ``error.code`` of an error body, if it is one."""
        try:
            body = self.json()
        except ValueError:
            return None
        return error_fields(body)[1]


class Transport:
    """Sends requests to one server."""

    def __init__(
        self,
        base_url: str,
        timeout: float,
        max_retries: int,
        headers: Optional[Mapping[str, str]] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self._headers = dict(headers or {})
        self._sleep = sleep
        self._opener = urllib.request.build_opener(_NoRedirect)

    def send(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, str]] = None,
        body: Any = None,
        token: Optional[str] = None,
        stream: bool = False,
    ) -> Response:
        """Sends the request (and its safe retries); returns the last answer, whatever its status.

        Raises:
            APIConnectionError: no answer (after the retries allowed).
            APIConnectionTimeoutError: no answer within ``timeout`` seconds.
        """
        method = method.upper()
        retryable = method in IDEMPOTENT_METHODS
        url = self.base_url + path + ("?" + urllib.parse.urlencode(query) if query else "")
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Accept": "application/json", **self._headers}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        attempt = 0
        while True:
            may_retry = retryable and attempt < self.max_retries
            try:
                response = self._attempt(method, url, data, headers, stream)
            except APIConnectionError:
                if not may_retry:
                    raise
                self._sleep(_backoff_seconds(attempt))
                attempt += 1
                continue
            if not may_retry or not is_retryable_status(response.status):
                return response
            wait = retry_after_seconds(response.headers)
            if wait is None:
                wait = _backoff_seconds(attempt)
            if wait > MAX_RETRY_WAIT_SECONDS:
                return response
            if response.stream is not None:
                response.stream.close()
            self._sleep(wait)
            attempt += 1

    def _attempt(self, method: str, url: str, data: Optional[bytes], headers: Dict[str, str], stream: bool) -> Response:
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            answer = self._opener.open(request, timeout=self.timeout)
        except urllib.error.HTTPError as error:
            # An error answer: read it whole (error bodies are small), whatever `stream` asked.
            try:
                return Response(error.code, _lower(error.headers), self._read(error))
            finally:
                error.close()
        except urllib.error.URLError as error:
            raise self._connection_error(error.reason) from error
        except (OSError, http.client.HTTPException) as error:
            raise self._connection_error(error) from error
        if stream:
            return Response(answer.status, _lower(answer.headers), b"", answer)
        try:
            return Response(answer.status, _lower(answer.headers), self._read(answer))
        finally:
            answer.close()

    def _read(self, answer: IO[bytes]) -> bytes:
        try:
            return answer.read()
        except (OSError, http.client.HTTPException) as error:
            raise self._connection_error(error) from error

    def _connection_error(self, reason: object) -> APIConnectionError:
        if isinstance(reason, (socket.timeout, TimeoutError)):
            return APIConnectionTimeoutError(self.timeout)
        return APIConnectionError(f"Could not reach the svc server at {self.base_url}: {reason}")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are not followed: the API never redirects, and a redirect would resend the credentials."""

    def redirect_request(self, req: Any, fp: Any, code: Any, msg: Any, headers: Any, newurl: Any) -> None:
        """Follows no redirect: the 3xx answer is raised as an error."""
        return None


def _lower(headers: Any) -> Dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


def _backoff_seconds(attempt: int) -> float:
    base = min(0.5 * 2**attempt, 8.0)
    return base * (0.75 + random.random() * 0.25)
