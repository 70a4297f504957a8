"""First-run setup (public)."""

from __future__ import annotations

from .._requester import Requester
from ..types import SetupStatus, User


class SetupResource:
    """``client.setup``."""

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def status(self) -> SetupStatus:
        """``GET /v1/admin/setup/status``: whether the first administrator still has to be created."""
        return self._requester.json("GET", "/v1/admin/setup/status", public=True)

    def create_admin(self, username: str, password: str) -> User:
        """``POST /v1/admin/setup``: creates the first administrator.

        Only the first call succeeds; later ones raise :class:`~svc_client.PermissionDeniedError`
        with code ``setup_already_completed``.
        """
        return self._requester.json("POST", "/v1/admin/setup", body={"username": username, "password": password}, public=True)
