"""A logged-in session: login, the access token for the next call (refreshed first when it has
expired), one refresh at a time for any number of threads, and logout.

A refresh the server refuses clears the session and raises :class:`AuthenticationError`; one that
fails on the way (connection, 5xx) keeps the session, so a later call can try again. Threads that
were waiting for a refresh share its outcome: its new token, or its error. Mirrors the TypeScript
SDK's ``sdk/src/session.ts``. Private to the package.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

from .errors import AuthenticationError, BadRequestError, SvcError
from .types import TokenPair

# An access token this close to its expiry is refreshed before use (clock skew, time in flight).
EXPIRY_MARGIN_SECONDS = 10.0

PostPublic = Callable[[str, Mapping[str, Any]], Any]


@dataclass(frozen=True)
class StoredSession:
    """The tokens of a login; ``access_token_expires_at`` is on the :func:`time.monotonic` clock."""

    access_token: str
    refresh_token: str
    access_token_expires_at: float

    def fresh(self) -> bool:
        """True while the access token is not within the margin of its expiry."""
        return time.monotonic() < self.access_token_expires_at - EXPIRY_MARGIN_SECONDS


class Session:
    """Holds the token pair of a login and refreshes it; safe to share between threads."""

    def __init__(self, post_public: PostPublic) -> None:
        self._post_public = post_public
        # Replaced whole (never mutated), so a reader always sees one consistent pair.
        self._stored: Optional[StoredSession] = None
        self._refresh_lock = threading.Lock()
        # Bumped after every refresh attempt, with its outcome: threads that waited share it.
        self._refresh_attempts = 0
        self._last_refresh_error: Optional[SvcError] = None

    @property
    def stored(self) -> Optional[StoredSession]:
        """The session now, or None when not logged in."""
        return self._stored

    def login(self, username: str, password: str) -> TokenPair:
        """Logs in and keeps the pair."""
        pair: TokenPair = self._post_public("/v1/auth/login", {"username": username, "password": password})
        self.adopt(pair)
        return pair

    def adopt(self, pair: TokenPair) -> None:
        """Keeps a pair the server handed out some other way (e.g. after changing one's own password)."""
        self._stored = StoredSession(pair["access_token"], pair["refresh_token"], time.monotonic() + pair["expires_in"])

    def replace(self, stored: Optional[StoredSession]) -> None:
        """Replaces the session (None forgets it)."""
        self._stored = stored

    def logout(self) -> None:
        """Revokes the refresh token on the server and forgets the session."""
        stored = self._stored
        self._stored = None
        if stored is not None:
            self._post_public("/v1/auth/logout", {"refresh_token": stored.refresh_token})

    def access_token(self) -> Optional[str]:
        """The access token to send now (refreshed first if it has expired), or None when not logged in."""
        stored = self._stored
        if stored is None:
            return None
        if stored.fresh():
            return stored.access_token
        self.refresh(stored.access_token)
        stored = self._stored
        return None if stored is None else stored.access_token

    def refresh(self, stale_access_token: str) -> None:
        """Replaces ``stale_access_token`` with a fresh pair.

        One refresh at a time: a thread that waited while another refreshed takes that refresh's
        outcome (its new pair, or its error) instead of sending another request.
        """
        attempts_seen = self._refresh_attempts
        with self._refresh_lock:
            if self._refresh_attempts != attempts_seen:
                if self._last_refresh_error is not None:
                    raise self._last_refresh_error
                if self._stored is not None:
                    return
            stored = self._stored
            if stored is None:
                raise AuthenticationError(401, None, {}, "Not logged in: call login() first")
            if stored.access_token != stale_access_token and stored.fresh():
                return
            outcome: Optional[SvcError] = None
            try:
                pair: TokenPair = self._post_public("/v1/auth/refresh", {"refresh_token": stored.refresh_token})
                self.adopt(pair)
            except SvcError as error:
                # A refused refresh ends the session; a network failure or a 5xx leaves it for the next try.
                if isinstance(error, (AuthenticationError, BadRequestError)):
                    self._stored = None
                outcome = error
                raise
            finally:
                self._refresh_attempts += 1
                self._last_refresh_error = outcome
