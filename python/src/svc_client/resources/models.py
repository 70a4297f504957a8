"""Running models: list, get, launch, terminate."""

from __future__ import annotations

from typing import Any, List, Optional

from .._not_given import NOT_GIVEN, given
from .._requester import Requester
from ..types import Model
from ._paths import segment


class ModelsResource:
    """``client.models``."""

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def list(self) -> List[Model]:
        """``GET /v1/models`` (``models:list``): the running models the caller may use."""
        return self._requester.json("GET", "/v1/models")["data"]

    def get(self, model_uid: str) -> Model:
        """``GET /v1/models/{model_uid}`` (``models:list``)."""
        return self._requester.json("GET", f"/v1/models/{segment(model_uid)}")

    def launch(
        self,
        model_name: str,
        *,
        model_uid: Optional[str] = None,
        model_engine: Optional[str] = None,
        model_type: Optional[str] = None,
        **options: Any,
    ) -> Any:
        """``POST /v1/models`` (``models:write``): launches a model; ``options`` go into the body as given."""
        body = given(
            model_name=model_name,
            model_uid=NOT_GIVEN if model_uid is None else model_uid,
            model_engine=NOT_GIVEN if model_engine is None else model_engine,
            model_type=NOT_GIVEN if model_type is None else model_type,
        )
        body.update(options)
        return self._requester.json("POST", "/v1/models", body=body)

    def terminate(self, model_uid: str) -> None:
        """``DELETE /v1/models/{model_uid}`` (``models:write``): stops the model."""
        self._requester.json("DELETE", f"/v1/models/{segment(model_uid)}")
