"""The caller's own account."""

from __future__ import annotations

from .._requester import Requester
from ..types import Me, TokenPair


class AuthResource:
    """``client.auth``."""

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def me(self) -> Me:
        """``GET /v1/auth/me``: who is calling, and the permissions in force for this call."""
        return self._requester.json("GET", "/v1/auth/me")

    def change_password(self, current_password: str, new_password: str) -> TokenPair:
        """``PUT /v1/auth/me/password``: changes one's own password (the current one is needed).

        Every other session of the account ends; this client keeps working with the fresh pair the
        server answers (returned too).
        """
        pair: TokenPair = self._requester.json(
            "PUT", "/v1/auth/me/password", body={"current_password": current_password, "new_password": new_password}
        )
        self._requester.session.adopt(pair)
        return pair
