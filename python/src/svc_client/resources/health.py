"""Health and the authentication switch (public)."""

from __future__ import annotations

from .._requester import Requester
from ..types import ClusterAuth, ClusterVersion, ServiceReadiness, ServiceStatus, UiConfig


class HealthResource:
    """``client.health``."""

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def status(self) -> ServiceStatus:
        """``GET /status`` (liveness): the server process is up, whether or not its database answers."""
        return self._requester.json("GET", "/status", public=True)

    def ready(self) -> ServiceReadiness:
        """``GET /ready`` (readiness): the server can take traffic; 503 ``service_unavailable`` while its database does not answer."""
        return self._requester.json("GET", "/ready", public=True)

    def auth_enabled(self) -> ClusterAuth:
        """``GET /v1/cluster/auth``: whether every other call needs credentials."""
        return self._requester.json("GET", "/v1/cluster/auth", public=True)

    def version(self) -> ClusterVersion:
        """``GET /v1/cluster/version``: the server's version (the reference server's shape)."""
        return self._requester.json("GET", "/v1/cluster/version", public=True)

    def ui_config(self) -> UiConfig:
        """``GET /v1/cluster/ui_config``: what the reference web UI reads before login."""
        return self._requester.json("GET", "/v1/cluster/ui_config", public=True)
