"""Running models: list, get, launch, terminate."""

from __future__ import annotations

from typing import Any, List, Optional

from .._not_given import present
from .._requester import Requester
from ..types import Model
from ._paths import segment


class ModelsResource:
    """``client.models``."""

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def list(self) -> List[Model]:
        """``GET /v1/models`` (``models:list``): the running models the caller may use (the answer's ``data``)."""
        return self._requester.json("GET", "/v1/models")["data"]

    def get(self, model_uid: str) -> Model:
        """``GET /v1/models/{model_uid}`` (``models:list``); a model the key may not use raises 403."""
        return self._requester.json("GET", f"/v1/models/{segment(model_uid)}")

    def launch(
        self,
        model_name: str,
        *,
        model_uid: Optional[str] = None,
        model_type: Optional[str] = None,
        model_engine: Optional[str] = None,
        upstream_base_url: Optional[str] = None,
        upstream_api_key: Optional[str] = None,
        upstream_model: Optional[str] = None,
        **options: Any,
    ) -> Model:
        """``POST /v1/models`` (``models:write``): starts serving the family ``model_name``.

        ``model_uid`` defaults to the family name (or, when a model already runs under it, the
        family name and a random suffix; the answer's ``model_uid`` names it). Engine ``builtin`` answers without weights;
        ``upstream`` (the default when ``upstream_base_url`` is given) forwards to an
        OpenAI-compatible server, called with ``upstream_api_key`` (stored encrypted, never
        returned). Further ``options`` go into the body as given.
        """
        body = {"model_name": model_name, **present(
            model_uid=model_uid,
            model_type=model_type,
            model_engine=model_engine,
            upstream_base_url=upstream_base_url,
            upstream_api_key=upstream_api_key,
            upstream_model=upstream_model,
        )}
        return self._requester.json("POST", "/v1/models", body={**options, **body})

    def terminate(self, model_uid: str) -> Model:
        """``DELETE /v1/models/{model_uid}`` (``models:write``): stops the model and forgets it; returns the model that was stopped."""
        return self._requester.json("DELETE", f"/v1/models/{segment(model_uid)}")
