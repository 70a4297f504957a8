"""Model families registered with the server (custom models)."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping

from .._requester import Requester
from ._paths import segment


class RegistrationsResource:
    """``client.registrations``."""

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def list(self, model_type: str) -> List[Dict[str, Any]]:
        """``GET /v1/model_registrations/{model_type}`` (``models:list``): the families of that type."""
        return self._requester.json("GET", f"/v1/model_registrations/{segment(model_type)}")

    def register(self, model_type: str, registration: Mapping[str, Any]) -> Any:
        """``POST /v1/model_registrations/{model_type}`` (``models:register``): registers a custom family."""
        return self._requester.json("POST", f"/v1/model_registrations/{segment(model_type)}", body=dict(registration))

    def unregister(self, model_type: str, model_name: str) -> None:
        """``DELETE /v1/model_registrations/{model_type}/{model_name}`` (``models:register``)."""
        self._requester.json("DELETE", f"/v1/model_registrations/{segment(model_type)}/{segment(model_name)}")
