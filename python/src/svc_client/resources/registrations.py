"""Model families: the built-in ones and those registered with the server."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping

from .._requester import Requester
from ..types import ModelRegistration
from ._paths import segment


class RegistrationsResource:
    """``client.registrations``."""

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def list(self, model_type: str) -> List[ModelRegistration]:
        """``GET /v1/model_registrations/{model_type}`` (``models:list``): the families of that type (``LLM``, ``embedding``, …)."""
        return self._requester.json("GET", f"/v1/model_registrations/{segment(model_type)}")

    def get(self, model_type: str, model_name: str) -> Dict[str, Any]:
        """``GET /v1/model_registrations/{model_type}/{model_name}`` (``models:list``): one family with its definition."""
        return self._requester.json("GET", f"/v1/model_registrations/{segment(model_type)}/{segment(model_name)}")

    def register(self, model_type: str, model: Mapping[str, Any]) -> ModelRegistration:
        """``POST /v1/model_registrations/{model_type}`` (``models:register``): registers a custom family.

        ``model`` is the family definition: ``model_name`` and optionally ``model_ability``,
        ``requires_system_message_first``, ``dimensions``, ``model_description``. It persists.
        """
        return self._requester.json("POST", f"/v1/model_registrations/{segment(model_type)}", body={"model": dict(model), "persist": True})

    def unregister(self, model_type: str, model_name: str) -> None:
        """``DELETE /v1/model_registrations/{model_type}/{model_name}`` (``models:register``).

        Built-in families cannot be unregistered (403); a family with running models raises 409.
        """
        self._requester.json("DELETE", f"/v1/model_registrations/{segment(model_type)}/{segment(model_name)}")
